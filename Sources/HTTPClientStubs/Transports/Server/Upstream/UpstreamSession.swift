import Foundation
import HTTPClient

/// The session every ``StubServer`` of the process sends its forwarded requests on: one for the
/// process, as a session per server or per request is slower and has crashed on teardown on
/// Linux. Nothing waits for an answer: the session calls back. It follows no redirect (a 3xx
/// goes back to the client), keeps no cookie and caches nothing: a forwarding server passes
/// these on and leaves them to its client. A body is collected up to its transfer's limit;
/// past it, the transfer is cancelled there. A transfer quiet for its request's
/// `timeoutInterval` is ended by a timer of its own: corelibs times a request out by its
/// session's `timeoutIntervalForRequest`, not by the request's.
final class UpstreamSession: Sendable {
    static let shared = UpstreamSession()

    /// One transfer's body so far, and what to tell when it ends.
    private struct Transfer: Sendable {
        let limit: Int
        let completion: @Sendable (Result<(HTTPURLResponse, Data), UpstreamError>) -> Void
        var body = Data()
        var failure: UpstreamError?
        /// When the transfer was sent or last heard from (its head, a part of its body).
        var lastHeard = DispatchTime.now()
    }

    private let session: URLSession
    private let transfers: Locked<[Int: Transfer]>
    /// Where tasks are made, resumed and cancelled. corelibs does each of these with `sync` on
    /// its sessions' work queue, and a server's event loop must never wait on that queue: a
    /// block running there may be waiting for the loop (a session invalidated on it releases the
    /// last reference to a server, whose stop waits for its loop), and both then wait forever.
    private let control = DispatchQueue(label: "HTTPClientStubs.UpstreamSession")

    private init() {
        let transfers = Locked<[Int: Transfer]>([:])
        self.transfers = transfers
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // As many transfers at once as a server takes connections: the default, 6 per host,
        // made a few slow upstream answers hold back every other forwarded request.
        configuration.httpMaximumConnectionsPerHost = StubServer.Configuration.defaultMaximumConnections
        session = URLSession(configuration: configuration, delegate: Delegate(transfers), delegateQueue: nil)
    }

    /// Sends `request`; `completion` gets the response and its whole body, or why there is none
    /// (a body over `limit` bytes, a transfer that failed or was cancelled), once, on the
    /// session's queue. Cancelling `cancellation` cancels the transfer. Returns at once: the
    /// transfer starts on a queue of the session's own, never on the caller's thread.
    func send(
        _ request: URLRequest, limit: Int, cancellation: ExchangeCancellation,
        completion: @escaping @Sendable (Result<(HTTPURLResponse, Data), UpstreamError>) -> Void
    ) {
        control.async { [self] in
            guard !cancellation.isCancelled else {
                let url = Redaction.standard.redacted(url: request.url?.absoluteString ?? "")
                return completion(.failure(.unreachable(url: url, reason: "cancelled")))
            }
            let task = session.dataTask(with: request)
            transfers.withLock { $0[task.taskIdentifier] = Transfer(limit: limit, completion: completion) }
            task.resume()
            // Registered once the task runs: a task cancelled before it is resumed is not one to resume.
            cancellation.onCancel { [control] in control.async { task.cancel() } }
            if request.timeoutInterval > 0 { endWhenQuiet(task, for: request.timeoutInterval) }
        }
    }

    /// Ends `task` once nothing has come for `interval` seconds: looks when the interval since
    /// it was last heard from is up, and again at the new deadline when it was heard from since.
    private func endWhenQuiet(_ task: URLSessionDataTask, for interval: TimeInterval, at deadline: DispatchTime? = nil) {
        let transfers = transfers
        DispatchQueue.global().asyncAfter(deadline: deadline ?? .now() + interval) { [weak self] in
            let quiet = transfers.withLock { transfers -> DispatchTime?? in
                guard var transfer = transfers[task.taskIdentifier] else { return nil }
                defer { transfers[task.taskIdentifier] = transfer }
                guard transfer.failure == nil else { return nil }
                let next = transfer.lastHeard + interval
                if next > .now() { return .some(next) }
                let seconds = interval.rounded() == interval ? String(Int(interval)) : String(interval)
                transfer.failure = .unreachable(
                    url: Delegate.url(of: task), reason: "nothing came for \(seconds) s (StubServer.Upstream.timeout)")
                transfer.body = Data()
                return .some(nil)
            }
            switch quiet {
            case .some(.none): self?.control.async { task.cancel() }
            case .some(.some(let next)): self?.endWhenQuiet(task, for: interval, at: next)
            case .none: break
            }
        }
    }

    /// Reads each transfer's body into `transfers`, within its limit, and ends it.
    private final class Delegate: NSObject, URLSessionDataDelegate, Sendable {
        private let transfers: Locked<[Int: Transfer]>

        init(_ transfers: Locked<[Int: Transfer]>) {
            self.transfers = transfers
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            transfers.withLock { $0[dataTask.taskIdentifier]?.lastHeard = .now() }
            // A length announced past the limit is refused before any of the body comes.
            if response.expectedContentLength > 0, exceedsLimit(dataTask, bytes: response.expectedContentLength) {
                dataTask.cancel()
                completionHandler(.cancel)
                return
            }
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let exceeded = transfers.withLock { transfers -> Bool in
                guard var transfer = transfers[dataTask.taskIdentifier], transfer.failure == nil else { return false }
                transfers[dataTask.taskIdentifier] = nil
                defer { transfers[dataTask.taskIdentifier] = transfer }
                transfer.lastHeard = .now()
                guard transfer.body.count + data.count <= transfer.limit else {
                    transfer.failure = .bodyTooLarge(url: Self.url(of: dataTask), limit: transfer.limit)
                    transfer.body = Data()
                    return true
                }
                transfer.body.append(data)
                return false
            }
            if exceeded { dataTask.cancel() }
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            // The client decides whether to follow: it gets the 3xx.
            completionHandler(nil)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
            if let failure = transfer.failure {
                transfer.completion(.failure(failure))
            } else if let error {
                // On one line: it is the log's too.
                let reason = ((error as? URLError).map(HTTPClientError.reason) ?? "\(error)").replacingOccurrences(of: "\n", with: " ")
                transfer.completion(.failure(.unreachable(url: Self.url(of: task), reason: reason)))
            } else if let response = task.response as? HTTPURLResponse {
                transfer.completion(.success((response, transfer.body)))
            } else {
                transfer.completion(.failure(.unreachable(url: Self.url(of: task), reason: "the answer is not an HTTP response")))
            }
        }

        /// Marks `task`'s transfer failed when `bytes` is past its limit.
        private func exceedsLimit(_ task: URLSessionTask, bytes: Int64) -> Bool {
            transfers.withLock { transfers in
                guard var transfer = transfers[task.taskIdentifier], bytes > Int64(transfer.limit) else { return false }
                transfer.failure = .bodyTooLarge(url: Self.url(of: task), limit: transfer.limit)
                transfers[task.taskIdentifier] = transfer
                return true
            }
        }

        /// The URL `task` was sent to, its credentials hidden.
        static func url(of task: URLSessionTask) -> String {
            Redaction.standard.redacted(url: task.originalRequest?.url?.absoluteString ?? "")
        }
    }
}
