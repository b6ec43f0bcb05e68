import Foundation
import HTTPClient
import HTTPClientMocks
import XCTest

/// The waits of `WaitTimeoutTests`, from an XCTest test: they run out the same way and say what
/// they saw.
final class WaitTimeoutXCTests: XCTestCase {
    func testAWaitForRequestsThatRunsOutListsWhatTheRegistrySaw() async throws {
        let stubs = StubRegistry("xctest feed", reporting: .disabled)
        let feed = stubs.stub(.get, "/feed").respond(.text("[]"))
        let session = MockURLSession(stubs: stubs)
        session.makeDataTask(with: URLRequest(url: try XCTUnwrap(URL(string: "https://h/feed")))) { _, _, _ in }.resume()
        session.makeDataTask(with: URLRequest(url: try XCTUnwrap(URL(string: "https://h/feeds")))) { _, _, _ in }.resume()

        do {
            try await feed.waitForRequests(2, timeout: .milliseconds(20))
            XCTFail("the wait returned, but a second request never comes")
        } catch let error as StubWaitError {
            XCTAssertEqual(
                error.description,
                """
                Waited 0.02 seconds for 2 requests to method GET && path /feed; 1 happened.
                It answered:
                  GET https://h/feed
                "xctest feed" saw 1 other request:
                  GET https://h/feeds: matched no stub
                """)
        }
    }

    func testAWaitUntilHoldingThatRunsOutSaysWhatItHeld() async throws {
        let stubs = StubRegistry("xctest gate", reporting: .disabled)
        let gate = HeldResponse("feed gate")
        stubs.stub(.get, "/feed").respond(.text("[]").held(by: gate))
        MockURLSession(stubs: stubs).makeDataTask(with: URLRequest(url: try XCTUnwrap(URL(string: "https://h/feed")))) { _, _, _ in }
            .resume()

        do {
            try await gate.waitUntilHolding(2, timeout: .milliseconds(20))
            XCTFail("the wait returned, but a second request never comes")
        } catch let error as StubWaitError {
            XCTAssertTrue(error.description.hasSuffix("It held:\n  GET https://h/feed: held now"), error.description)
        }
        gate.release()
    }
}
