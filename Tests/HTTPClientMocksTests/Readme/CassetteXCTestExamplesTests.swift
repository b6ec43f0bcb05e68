// The XCTest form of the cassette trait, as the README and the cassettes article show it. A
// file of its own: Apple's SDK check leaves out test files that import XCTest, and the README's
// other examples (and the `User` type the articles share) must stay in it.

import Foundation
import HTTPClient
import HTTPClientMocks
import XCTest

final class UserServiceTests: XCTestCase {
    func testFetchesTheUser() async throws {
        let service = UserService(session: try cassette())  // Cassettes/UserServiceTests.testFetchesTheUser.json

        let user = try await service.user(id: 1)

        XCTAssertEqual(user.name, "Ada")
    }
}
