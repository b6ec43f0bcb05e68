import Foundation
import HTTPClient
import HTTPClientMocks
import XCTest

// The XCTest example of the testing article's "What a failed test leaves behind", compiled and run.

final class ProfileLoaderTests: XCTestCase {
    func testLoadsTheProfileName() async throws {
        let stubs = makeStubRegistry()  // this test's: attached when it fails
        stubs.stub(.get, "https://api.example.com/me").respond(.text("Ada"))
        let client = HTTPClient(session: MockURLSession(stubs: stubs))

        let name = try await client.get("https://api.example.com/me").text
        XCTAssertEqual(name, "Ada")
    }
}
