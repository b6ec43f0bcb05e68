import Foundation
import HTTPClient

/// The in-process floor of the peer table: the recording mock a developer writes by hand, as they write
/// it. It appends each `URLRequest` to an array under a lock and returns a trivial data task
/// whose `resume()` calls the completion with canned data and an `HTTPURLResponse` built for
/// that request's URL (a hand-written mock cannot answer with another URL's response); no
/// matching, no session emulation. `MockURLSession` is measured against it, both driven by
/// `HTTPClient` (`Scenarios.clientCall`).
public final class HandWrittenMock: URLSessionProtocol, @unchecked Sendable {
    // @unchecked: `recorded` is only touched under `lock`; everything else is immutable.
    private let lock = NSLock()
    private var recorded: [URLRequest] = []
    private let data = Data("ok".utf8)

    /// A mock answering every request with 200 and "ok".
    public init() {}

    /// How many requests it has recorded.
    public var requestCount: Int { lock.withLock { recorded.count } }

    /// Forgets the recorded requests, so memory stays flat over a long measurement.
    public func removeAllRecords() { lock.withLock { recorded.removeAll(keepingCapacity: true) } }

    /// Records `request` and returns a task that, on `resume()`, calls `completionHandler` with
    /// "ok" and a 200 response for the request's URL (or `URLError(.badURL)` if it has none).
    /// - Parameters:
    ///   - request: The request, recorded as it is.
    ///   - completionHandler: Called once per `resume()`.
    public func makeDataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any URLSessionDataTaskProtocol {
        lock.withLock { recorded.append(request) }
        let data = data
        return CannedTask {
            guard let url = request.url,
                let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil)
            else { return completionHandler(nil, nil, URLError(.badURL)) }
            completionHandler(data, response, nil)
        }
    }
}

/// A task that answers when resumed.
private final class CannedTask: URLSessionDataTaskProtocol {
    let answer: @Sendable () -> Void

    init(_ answer: @escaping @Sendable () -> Void) { self.answer = answer }

    func resume() { answer() }

    func cancel() {}
}
