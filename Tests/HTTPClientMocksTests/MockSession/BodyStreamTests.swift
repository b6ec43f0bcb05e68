import Foundation
import HTTPClient
import HTTPClientMocks
@_spi(Engine) import HTTPClientStubs
import Testing

/// A stream that gives `prefix`, then fails.
final class FailingInputStream: InputStream {
    private var remaining: [UInt8]
    private var failed = false

    init(after prefix: [UInt8]) {
        remaining = prefix
        super.init(data: Data())
    }

    override func open() {}
    override func close() {}
    override var hasBytesAvailable: Bool { !failed }
    override var streamError: (any Error)? {
        failed ? CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "disk went away"]) : nil
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        guard !remaining.isEmpty else {
            failed = true
            return -1
        }
        let count = min(length, remaining.count)
        for index in 0..<count { buffer[index] = remaining[index] }
        remaining.removeFirst(count)
        return count
    }
}

/// A request body given as a stream is read once, whole, or the request fails saying why.
@Suite("Body streams")
struct BodyStreamTests {
    func streamed(_ stream: InputStream) -> URLRequest {
        var request = URLRequest(url: testURL("https://h/upload"))
        request.httpMethod = "POST"
        request.httpBodyStream = stream
        return request
    }

    /// What the session's completion handler received (it completes inside `resume()`).
    struct Outcome: Sendable {
        let body: Data?
        let error: BodyStreamError?
    }

    func send(_ request: URLRequest, through session: MockURLSession) -> Outcome? {
        let recorder = CompletionRecorder<Outcome>()
        session.makeDataTask(with: request) { data, _, error in
            recorder.record(Outcome(body: data, error: error as? BodyStreamError))
        }.resume()
        return recorder.value
    }

    @Test func aStreamThatFailsFailsTheRequestInsteadOfSendingATruncatedBody() {
        let outcome = send(streamed(FailingInputStream(after: Array("12345".utf8))), through: MockURLSession())
        #expect(outcome?.error?.request == "POST https://h/upload")
        #expect(outcome?.error?.bytesRead == 5)
        #expect(outcome?.error?.reason == "disk went away")
        #expect(outcome?.error?.description.contains("failed after 5 bytes (disk went away)") == true)
        #expect(outcome?.body == nil)
    }

    @Test func theEngineRefusesToMatchARequestWhoseStreamFailed() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.post, "/upload").respond(.status(201))
        guard case .failed(let error) = stubs.resolve(streamed(FailingInputStream(after: [1, 2]))) else {
            Issue.record("expected the request to fail")
            return
        }
        #expect((error as? BodyStreamError)?.bytesRead == 2)
    }

    @Test func aStreamIsReadOnceAndEveryReaderSeesItsBytes() {
        let session = MockURLSession()
        session.enqueue(.computed { request in .text("got \(request.text ?? "")") })
        let outcome = send(streamed(InputStream(data: Data("streamed body".utf8))), through: session)
        #expect(outcome?.body == Data("got streamed body".utf8))
        #expect(session.requests.first?.body == Data("streamed body".utf8))
        #expect(session.requests.first?.urlRequest.httpBodyStream == nil)
    }
}
