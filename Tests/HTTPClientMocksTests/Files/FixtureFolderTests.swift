import Foundation
import HTTPClient
import HTTPClientMocks
@_spi(Engine) import HTTPClientStubs
import Testing

/// A temporary fixture folder, removed when the test ends.
final class TemporaryFolder: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("httpclient-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: url.appendingPathComponent(name))
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

@Suite("Fixture folders")
struct FixtureFolderTests {
    let folder: TemporaryFolder
    let stubs: StubRegistry
    let failures = CollectedFailures()

    init() throws {
        folder = try TemporaryFolder()
        stubs = StubRegistry("fixtures", reporting: failures.reporting)
        stubs.serve(try FixtureFolder(directory: folder.url))
    }

    var client: HTTPClient { HTTPClient(session: MockURLSession(stubs: stubs)) }

    @Test func jsonFilesAre200WithAJSONContentType() async throws {
        try folder.write("GET|-users-1.json", #"{"id": 1}"#)
        let response = try await client.get(testURL("https://api.example.com/users/1"))
        #expect(response.statusCode == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.text == #"{"id": 1}"#)
    }

    @Test func httpFilesComeBeforeJSONFiles() async throws {
        try folder.write("GET|-users-1.json", #"{"from": "json"}"#)
        try folder.write("GET|-users-1.http", "HTTP/1.1 203 Non-Authoritative\nX-From: http\n\nfrom http")
        let response = try await client.get(testURL("https://api.example.com/users/1"))
        #expect(response.statusCode == 203)
        #expect(response.text == "from http")
    }

    @Test func theExtensionIsAlwaysAppended() async throws {
        try folder.write("GET|-report.json.json", #"{"ok": true}"#)
        #expect(try await client.get(testURL("https://h/report.json")).text == #"{"ok": true}"#)
    }

    @Test func aPostWithAJSONBodyFindsItsBencodedFile() async throws {
        try folder.write("POST|-users|d4-name3-Adae.http", "HTTP/1.1 201 Created\nLocation: /users/9\n\n")
        let response = try await client.send(.post(testURL("https://h/users"), body: .json(["name": "Ada"])))
        #expect(response.statusCode == 201)
        #expect(response.headers["Location"] == "/users/9")
    }

    @Test func aMissListsEveryFileNameTriedMostSpecificFirst() async throws {
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.get(testURL("https://h/users?page=2"))
        }
        let hash = SHA256Hex.of("page=2")
        let tried = ["GET|-users?page=2.http", "GET|-users?\(hash).http", "GET|-users?page=2.json", "GET|-users?\(hash).json"]
        let report = try #require(stubs.unmatchedRequests.first?.description)
        #expect(
            report.contains(
                "no file in \(folder.url.path) for this request; tried, most specific first:\n"
                    + tried.map { "         \($0)" }.joined(separator: "\n")))
        #expect(error?.description.contains(tried[0]) == true)
        #expect(failures.all.count == 1)
    }

    @Test func aMalformedFileIsATypedErrorNotASilent404() async throws {
        try folder.write("GET|-broken.http", "HTTP/1.1 200 OK\nContent-Type text/plain\n\nbody")
        let error = await #expect(throws: HTTPClientError.self) { try await client.get(testURL("https://h/broken")) }
        let fixtureError = error?.underlyingError as? FixtureError
        #expect(
            fixtureError
                == .malformed(
                    file: folder.url.appendingPathComponent("GET|-broken.http").path, line: 2,
                    reason:
                        "\"Content-Type text/plain\" is not a header line (\"Name: value\"); if the body starts here, put one blank line before it"
                ))
    }

    /// What can be under a fixture's name that is not a file, and what the error says is there.
    static let unreadableFixtures = [
        ("pipe", "it is a FIFO (named pipe), not a regular file"), ("folder", "it is a directory, not a regular file"),
        ("loop", "its symbolic links loop, or nest too deeply (Too many levels of symbolic links)"),
        ("dangling", "it is a symbolic link to nothing"),
    ]

    /// Makes `kind` (see ``unreadableFixtures``) at `path`.
    static func make(_ kind: String, at path: String) throws {
        switch kind {
        case "pipe": #expect(mkfifo(path, 0o600) == 0)
        case "folder": try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case "loop": try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: path)
        default: try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: path + ".missing")
        }
    }

    @Test(arguments: unreadableFixtures, [".json", ".http"])
    func aFixtureThatIsNotAReadableFileIsAnErrorSayingWhatIsThere(_ fixture: (kind: String, reason: String), _ ext: String) async throws {
        let path = folder.url.appendingPathComponent("GET|-\(fixture.kind)\(ext)").path
        try Self.make(fixture.kind, at: path)
        let error = await #expect(throws: HTTPClientError.self) { try await client.get(testURL("https://h/\(fixture.kind)")) }
        #expect(error?.underlyingError as? FixtureError == .unreadable(file: path, reason: fixture.reason))
        #expect(error?.description.contains("\(path): cannot be read (\(fixture.reason))") == true)
        #expect(stubs.unmatchedRequests.isEmpty, "the fixture is there: the request is not reported as having no file")
    }

    @Test func theFolderIsAStubThatCountsItsCalls() async throws {
        try folder.write("GET|-a.json", "{}")
        _ = try await client.get(testURL("https://h/a"))
        _ = try await client.get(testURL("https://h/a"))
        let fixtures = try #require(stubs.stubs.first)
        #expect(stubs.verify(fixtures, requested: .exactly(2)))
        #expect(fixtures.calls.map(\.path) == ["/a", "/a"])
        // The file that answered is a field of the request, not a path parameter.
        let file = AnswerSource.file(folder.url.appendingPathComponent("GET|-a.json"))
        #expect(fixtures.calls.map(\.answerSource) == [file, file])
        #expect(fixtures.calls.allSatisfy { $0.pathParameters.isEmpty })
    }

    @Test func newerInlineStubsWinOverTheFolder() async throws {
        try folder.write("GET|-a.json", #"{"from": "file"}"#)
        stubs.stub(.get, "/a").respond(.text("inline"))
        #expect(try await client.get(testURL("https://h/a")).text == "inline")
    }

    @Test func aFolderThatDoesNotExistIsAnError() {
        let missing = folder.url.appendingPathComponent("nope")
        #expect(throws: FixtureError.notADirectory(missing.path)) { try FixtureFolder(directory: missing) }
    }

    @Test func aFolderCanLiveInTheTestBundle() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.serve(try FixtureFolder(bundle: .module, subdirectory: "Fixtures"))
        let client = HTTPClient(session: MockURLSession(stubs: stubs))
        #expect(try await client.get(testURL("https://h/bundled")).text == "{\"from\": \"the test bundle\"}\n")
        let deleted = try await client.send(.delete(testURL("https://h/bundled")))
        #expect(deleted.statusCode == 202)
        #expect(deleted.headers["X-Source"] == "bundle")
    }

    @Test func wildcardsAnswerAnyQueryWhenEnabled() async throws {
        try folder.write("GET|-search?*.json", "[]")
        let wild = StubRegistry(reporting: .disabled)
        wild.serve(try FixtureFolder(directory: folder.url, wildcards: true))
        #expect(try await HTTPClient(session: MockURLSession(stubs: wild)).get(testURL("https://h/search?q=anything")).text == "[]")
        await #expect(throws: HTTPClientError.self) { try await client.get(testURL("https://h/search?q=anything")) }
    }
}

/// The digest through the public naming API, so this suite does not reach into internals.
enum SHA256Hex {
    static func of(_ query: String) -> String {
        let names = FixtureNaming.candidates(for: RecordedRequest(request("GET", "https://h/x?\(query)")))
        return String(names[1].split(separator: "?")[1])
    }
}
