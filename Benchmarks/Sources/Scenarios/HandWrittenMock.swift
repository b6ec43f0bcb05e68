import Foundation
import HTTPClient

/// The in-process floor of issue 25: the mock a developer would write by hand. It records each
/// request under a lock and answers canned data with a prebuilt response when the task resumes;
/// no matching, no session emulation. `MockURLSession` is measured against it.
public final class HandWrittenMock: URLSessionProtocol, @unchecked Sendable {
    // @unchecked: `recorded` is only touched under `lock`; everything else is immutable.
    private let lock = NSLock()
    private var recorded: [URLRequest] = []
    private let data = Data("ok".utf8)
    private let response: HTTPURLResponse

    /// A mock answering 200 and "ok" for `url` (the response is built once, here).
    public init(answering url: URL) {
        guard let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil) else {
            preconditionFailure("no response for \(url)")
        }
        self.response = response
    }

    /// How many requests it has recorded.
    public var requestCount: Int { lock.withLock { recorded.count } }

    /// Forgets the recorded requests, so memory stays flat over a long measurement.
    public func removeAllRecords() { lock.withLock { recorded.removeAll(keepingCapacity: true) } }

    /// Records `request` and returns a task that, on `resume()`, calls `completionHandler` with
    /// "ok" and the prebuilt response.
    /// - Parameters:
    ///   - request: The request, recorded as it is.
    ///   - completionHandler: Called once per `resume()`.
    public func makeDataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any URLSessionDataTaskProtocol {
        lock.withLock { recorded.append(request) }
        let (data, response) = (data, response)
        return CannedTask { completionHandler(data, response, nil) }
    }
}

/// A task that answers when resumed.
private final class CannedTask: URLSessionDataTaskProtocol {
    let answer: @Sendable () -> Void

    init(_ answer: @escaping @Sendable () -> Void) { self.answer = answer }

    func resume() { answer() }

    func cancel() {}
}
