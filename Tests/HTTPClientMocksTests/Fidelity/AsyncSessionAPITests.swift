import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@Suite("URLSession's async API on stubbed sessions")
struct AsyncSessionAPITests {
    @Test(arguments: Transport.allCases)
    func dataForARequestReturnsTheStubbedBody(_ transport: Transport) async throws {
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

    /// Where an upload's body never reaches the stubs (documented), the request is recorded with
    /// its body hidden, a body condition fails, and the report says why.
    @Test(arguments: Transport.allCases)
    func uploadFromDataRecordsTheBodyAndMatchesOnIt(_ transport: Transport) async throws {
        let failures = CollectedFailures()
        let stubs = StubRegistry(reporting: failures.reporting)
        let upload = stubs.stub(.post, "/photos").matching(.body("pixels")).respond(.status(201)).allowingUnused()
        var request = URLRequest(url: testURL("https://h/photos"))
        request.httpMethod = "POST"
        let session = try transport.session(stubs)
        if transport.differs(in: .uploadBodies) {
            await #expect(throws: (any Error).self) { try await session.upload(for: request, from: Data("pixels".utf8)) }
            #expect(stubs.requests.first?.isBodyHidden == true)
            #expect(failures.all.first?.contains("never reached the stub") == true)
        } else {
            let (_, response) = try await session.upload(for: request, from: Data("pixels".utf8))
            #expect(response.status == 201)
            #expect(upload.calls.first?.body == Data("pixels".utf8))
            #expect(failures.all.isEmpty)
        }
    }

    @Test(arguments: Transport.allCases)
    func uploadFromFileSendsTheFilesContents(_ transport: Transport) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString).txt")
        try Data("from a file".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let failures = CollectedFailures()
        let stubs = StubRegistry(reporting: failures.reporting)
        let upload = stubs.stub(.put, "/doc").matching(.body("from a file")).respond(.status(204)).allowingUnused()
        var request = URLRequest(url: testURL("https://h/doc"))
        request.httpMethod = "PUT"
        let session = try transport.session(stubs)
        if transport.differs(in: .uploadBodies) {
            await #expect(throws: (any Error).self) { try await session.upload(for: request, fromFile: file) }
            #expect(stubs.requests.first?.isBodyHidden == true)
        } else {
            let (_, response) = try await session.upload(for: request, fromFile: file)
            #expect(response.status == 204)
            #expect(upload.calls.first?.body == Data("from a file".utf8))
        }
    }

    /// MockURLSession's own upload, as `URLSession` on Apple platforms does it; a real session's
    /// is its own (corelibs sends nothing in its place, or fails otherwise).
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

    /// Where a download task cannot be answered (documented), it fails at once saying what to
    /// use instead, rather than crashing.
    @Test(arguments: Transport.allCases)
    func downloadWritesTheBodyToAFileTheCallerOwns(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let report = stubs.stub(.get, "/report.pdf").respond(.status(200, body: Data("%PDF".utf8))).allowingUnused()
        let session = try transport.session(stubs)
        let request = URLRequest(url: testURL("https://h/report.pdf"))
        if transport.differs(in: .downloadTasks) {
            let error = await #expect(throws: URLError.self) { try await session.download(for: request) }
            #expect(error?.code == .unsupportedURL)
            #expect(error?.localizedDescription.contains("use MockURLSession") == true)
            #expect(report.callCount == 0)
        } else {
            let (file, response) = try await session.download(for: request)
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(response.status == 200)
            #expect(try Data(contentsOf: file) == Data("%PDF".utf8))
        }
    }

    @Test(arguments: Transport.allCases)
    func cancellingTheSwiftTaskCancelsTheRequest(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        stubs.stub(.get, "/slow").respond(.text("late").held(by: gate))
        let session = try transport.session(stubs)
        let call = Task { try await session.data(for: URLRequest(url: testURL("https://h/slow"))) }
        try await gate.waitUntilHolding(timeout: eventWait)
        call.cancel()
        let error = await #expect(throws: URLError.self) { try await call.value }
        #expect(error?.code == .cancelled)
        gate.release()
    }
}
