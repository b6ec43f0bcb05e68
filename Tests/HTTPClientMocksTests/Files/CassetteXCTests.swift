import Foundation
import HTTPClient
import HTTPClientMocks
import XCTest

/// `cassette()`, the XCTest face of the `.cassette()` trait: a cassette named after the class and
/// the method, beside the test file (here in a temporary folder given as `folder:`).
final class CassetteXCTests: XCTestCase {
    /// Plays the real API; cassettes record from it.
    func makeUpstream() -> MockURLSession {
        let upstream = MockURLSession(stubs: StubRegistry("the real API", reporting: .disabled))
        upstream.stubs.stub(.get, "/users/{id}").respond(.computed { request in .text("user \(request.pathParameters["id"] ?? "")") })
        return upstream
    }

    func fetchUser(_ id: Int, from session: CassetteSession) async throws -> String? {
        try await HTTPClient(session: session).get(try XCTUnwrap(URL(string: "https://api.example.com/users/\(id)"))).text
    }

    func testRecordsIntoACassetteNamedAfterTheClassAndTheMethod() async throws {
        let folder = try TemporaryFolder()

        _ = try await fetchUser(1, from: try cassette(mode: .once, upstream: makeUpstream(), folder: folder.url))

        let file = folder.url.appendingPathComponent(
            "Cassettes/CassetteXCTests.testRecordsIntoACassetteNamedAfterTheClassAndTheMethod.json")
        XCTAssertEqual(try Cassette(contentsOf: file).interactions.map(\.request.url), ["https://api.example.com/users/1"])
    }

    func testReplaysTheCassetteWithoutReachingTheNetwork() async throws {
        let folder = try TemporaryFolder()
        let recorder = try CassetteSession(
            file: folder.url.appendingPathComponent("Cassettes/profile.json"), mode: .all, upstream: makeUpstream(), reporting: .disabled)
        _ = try await fetchUser(1, from: recorder)
        let upstream = makeUpstream()

        let answer = try await fetchUser(1, from: try cassette("profile", mode: .none, upstream: upstream, folder: folder.url))

        XCTAssertEqual(answer, "user 1")
        XCTAssertEqual(upstream.requests.count, 0)
    }

    func testAMissingCassetteThrowsNamingTheFileWhenTheModeIsNone() throws {
        let folder = try TemporaryFolder()
        XCTAssertThrowsError(try cassette(mode: .none, folder: folder.url)) { error in
            guard case .unreadable(let file, _)? = error as? CassetteError else { return XCTFail("\(error)") }
            XCTAssertEqual(
                file,
                folder.url.appendingPathComponent("Cassettes/CassetteXCTests.testAMissingCassetteThrowsNamingTheFileWhenTheModeIsNone.json")
                    .path)
        }
    }

    func testPlaysReplaysArchiveNamedAfterTheMethod() async throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("Replays"), withIntermediateDirectories: true)
        try Data(replayArchive(url: "https://api.example.com/users/7", body: "Ada from Replay").utf8)
            .write(to: folder.url.appendingPathComponent("Replays/testPlaysReplaysArchiveNamedAfterTheMethod.har"))
        let upstream = makeUpstream()

        let answer = try await fetchUser(7, from: try cassette(mode: .none, upstream: upstream, folder: folder.url))

        XCTAssertEqual(answer, "Ada from Replay")
        XCTAssertEqual(upstream.requests.count, 0)
    }

    func testAMalformedReplayArchiveThrowsNamingTheFile() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("Replays"), withIntermediateDirectories: true)
        let archive = folder.url.appendingPathComponent("Replays/profile.har")
        try Data("not json".utf8).write(to: archive)

        XCTAssertThrowsError(try cassette("profile", mode: .none, folder: folder.url)) { error in
            guard case .invalidHAR(let file, _)? = error as? CassetteError else { return XCTFail("\(error)") }
            XCTAssertEqual(file, archive.path)
        }
    }
}
