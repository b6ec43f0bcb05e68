import Foundation
import HTTPClient

/// What the registry answers one request with, a held response waited out: the engine's core,
/// which knows nothing of sessions (cookies, the cache, redirects, timeouts) or servers.
package enum StubAnswer: Sendable {
    /// A stub's response (a held one released), with the request as the stub recorded it.
    case respond(MockResponse, RecordedRequest, Stub)
    /// No stub answers and a pass-through rule lets the request go to the network.
    case passthrough(URLRequest)
    /// The request cannot be answered: no stub matched (`UnmatchedRequestError`), its body stream
    /// failed, or it was cancelled while held (`URLError(.cancelled)`).
    case failed(any Error)
}

extension StubRegistry {
    /// Answers one request from the stubs (newest first), then the pass-through rules, then fails
    /// with the unmatched report; a held response first waits for its release, or for
    /// `cancellation`, whichever comes first.
    ///
    /// `completion` is called exactly once: before this returns, unless a held response suspends
    /// the answer until it is released.
    /// - Parameters:
    ///   - bodyIsHidden: A body was sent that the transport cannot see (an upload task through a
    ///     URLProtocol); body conditions then fail and say so.
    ///   - answersHeadAsGet: A HEAD that no stub answers is answered by the GET's (a server's rule).
    ///   - passesUnmatchedThrough: What no stub answers is let through (a server with an upstream).
    ///   - headBytes: The size of the head a server read for it (see ``retainedRequestBytes``).
    package func respond(
        to request: URLRequest, bodyIsHidden: Bool = false, answersHeadAsGet: Bool = false, passesUnmatchedThrough: Bool = false,
        headBytes: Int = 0, cancellation: ExchangeCancellation, completion: @escaping @Sendable (StubAnswer) -> Void
    ) {
        guard !cancellation.isCancelled else {
            // Cancelled before it was sent: no stub sees it.
            completion(.failed(URLError(.cancelled, userInfo: [NSURLErrorFailingURLErrorKey: request.url as Any])))
            return
        }
        switch resolve(
            request, reportingMisses: true, bodyIsHidden: bodyIsHidden, answersHeadAsGet: answersHeadAsGet,
            passesUnmatchedThrough: passesUnmatchedThrough, headBytes: headBytes)
        {
        case .passthrough(let forwarded):
            completion(.passthrough(forwarded))
        case .unmatched(let error):
            completion(.failed(error))
        case .failed(let error):
            completion(.failed(error))
        case .respond(let response, let recorded, let stub):
            guard let hold = response.hold else {
                completion(.respond(response, recorded, stub))
                return
            }
            noteHold(hold)
            // The release and a cancellation race: the first to come decides.
            let settled = Locked(false)
            let settles = { @Sendable in
                settled.withLock { settled in
                    defer { settled = true }
                    return !settled
                }
            }
            hold.hold(recorded, cancellation: cancellation) { error in
                guard settles() else { return }
                var released = response
                released.hold = nil
                if let error { released.outcome = .failure(error) }
                completion(.respond(released, recorded, stub))
            }
            // Cancelled while held: the gate lets go of the request, and the answer ends here.
            cancellation.onCancel {
                guard settles() else { return }
                completion(.failed(URLError(.cancelled, userInfo: [NSURLErrorFailingURLErrorKey: recorded.url])))
            }
        }
    }
}

extension StubRegistry {
    /// Whether the stub that would answer `request` now, judged by its head alone, stops reading
    /// its body (``StubFault/disconnectDuringRequestBody``): a server asks before it reads the
    /// body. Nothing is taken or recorded; a stub with a body condition is not judged (the body
    /// is hidden, so the condition fails) and the body is read.
    package func disconnectsDuringBody(_ request: URLRequest) -> Bool {
        guard let stub = firstMatch(for: RecordedRequest(request, bodyIsHidden: true)),
            case .failure(let error) = stub.upcomingResponse?.outcome
        else { return false }
        return error as? StubFault == .disconnectDuringRequestBody
    }
}

extension Delivery {
    /// Takes `response` (of `stub`, to `recorded`) as this hop's answer: its latency, head, body
    /// and timed parts. What a server sends, before any rule of a session.
    mutating func take(_ response: MockResponse, of stub: Stub, to recorded: RecordedRequest) {
        answered.append((stub, recorded))
        let arguments = response.completionArguments(for: recorded.urlRequest)
        data = arguments.0
        self.response = arguments.1
        error = arguments.2
        if case .http(_, let headers, _) = response.outcome { headerFields = headers }
        wire = response.wire
        parts = response.deliveredParts(body: arguments.0)
        latency += response.latency
        // A throttled body's pauses: what a caller of the whole body waits after the headers.
        downloadTime = response.throughput == nil ? 0 : parts.reduce(0) { $0 + ($1.pause ?? 0) }
    }
}
