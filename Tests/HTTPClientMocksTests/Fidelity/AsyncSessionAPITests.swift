import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@Suite("URLSession's async API on stubbed sessions")
struct AsyncSessionAPITests {
    @Test(arguments: StubTransport.allCases)
    func dataForARequestReturnsTheStubbedBody(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/users/1").respond(.json(raw: #"{"id":1}"#))
        let (data, response) = try await transport.session(stubs).data(for: URLRequest(url: testURL("https://api.example/users/1")))
        #expect(String(decoding: data, as: UTF8.self) == #"{"id":1}"#)
        #expect(response.status == 200)
    }

    /// `URLSession`'s conformance forwards to its `delegate:` methods; a forward that resolved
    /// to itself would never return.
    @Test func urlSessionsOwnAsyncMethodsAnswerThroughTheProtocol() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/a").respond(.text("a"))
        let session: any URLSessionProtocol = stubs.makeURLSession()
        let (data, _) = try await session.data(for: URLRequest(url: testURL("https://h/a")))
        #expect(data == Data("a".utf8))
    }

    @Test func uploadFromDataRecordsTheBodyAndMatchesOnIt() async throws {
        let stubs = StubRegistry()
        let upload = stubs.stub(.post, "/photos").matching(.body("pixels")).respond(.status(201))
        var request = URLRequest(url: testURL("https://h/photos"))
        request.httpMethod = "POST"
        let session = MockURLSession(stubs: stubs)
        let (_, response) = try await session.upload(for: request, from: Data("pixels".utf8))
        #expect(response.status == 201)
        #expect(upload.calls.first?.body == Data("pixels".utf8))
        #expect(session.lastURL == testURL("https://h/photos"))
    }

    @Test func uploadFromFileSendsTheFilesContents() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString).txt")
        try Data("from a file".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let stubs = StubRegistry()
        stubs.stub(.put, "/doc").matching(.body("from a file")).respond(.status(204))
        var request = URLRequest(url: testURL("https://h/doc"))
        request.httpMethod = "PUT"
        let (_, response) = try await MockURLSession(stubs: stubs).upload(for: request, fromFile: file)
        #expect(response.status == 204)
    }

    @Test func uploadFromAMissingFileFailsNamingItAndSendsNothing() async throws {
        let stubs = StubRegistry()
        let session = MockURLSession(stubs: stubs)
        let missing = URL(fileURLWithPath: "/nonexistent/upload.bin")
        let error = await #expect(throws: URLError.self) {
            try await session.upload(for: URLRequest(url: testURL("https://h/doc")), fromFile: missing)
        }
        #expect(error?.code == .fileDoesNotExist)
        #expect(error?.localizedDescription.contains("/nonexistent/upload.bin") == true)
        #expect(session.requests.isEmpty)
    }

    @Test func downloadWritesTheBodyToAFileTheCallerOwns() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/report.pdf").respond(.status(200, body: Data("%PDF".utf8)))
        let (file, response) = try await MockURLSession(stubs: stubs).download(for: URLRequest(url: testURL("https://h/report.pdf")))
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(response.status == 200)
        #expect(try Data(contentsOf: file) == Data("%PDF".utf8))
    }

    @Test func aDownloadThroughTheURLProtocolFailsClearlyInsteadOfCrashing() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/report.pdf").respond(.status(200, body: Data("%PDF".utf8))).allowingUnused()
        let session = stubs.makeURLSession()
        let error = await #expect(throws: URLError.self) {
            try await session.download(for: URLRequest(url: testURL("https://h/report.pdf")), delegate: nil)
        }
        #expect(error?.localizedDescription.contains("use MockURLSession") == true)
    }

    /// URLSession keeps an upload task's body from URLProtocols: the stub must not see an
    /// empty body and match on it, and the report must say why.
    @Test func anUploadsBodyHiddenFromTheURLProtocolFailsBodyConditionsWithTheReason() async throws {
        let failures = CollectedFailures()
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.post, "/photos").matching(.body("")).respond(.status(201)).allowingUnused()
        var request = URLRequest(url: testURL("https://h/photos"))
        request.httpMethod = "POST"
        await #expect(throws: (any Error).self) {
            try await stubs.makeURLSession().upload(for: request, from: Data("pixels".utf8), delegate: nil)
        }
        #expect(stubs.requests.first?.isBodyHidden == true)
        #expect(failures.all.first?.contains("never reached the stub") == true)
    }

    @Test(arguments: StubTransport.allCases)
    func cancellingTheSwiftTaskCancelsTheRequest(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        stubs.stub(.get, "/slow").respond(.text("late").held(by: gate))
        let session = transport.session(stubs)
        let call = Task { try await session.data(for: URLRequest(url: testURL("https://h/slow"))) }
        try await gate.waitUntilHolding()
        call.cancel()
        let error = await #expect(throws: URLError.self) { try await call.value }
        #expect(error?.code == .cancelled)
        gate.release()
    }
}
