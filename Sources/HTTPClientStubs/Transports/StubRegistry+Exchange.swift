import Foundation
import HTTPClient

extension StubRegistry {
    /// Answers `request` as a `URLSession` with `behaviour` would see it answered: stored
    /// cookies are added, the cache consulted and filled, each response's cookies stored, redirects followed (each hop resolved
    /// and recorded like any request), and an answer later than the timeout replaced by
    /// `URLError(.timedOut)`. The one exchange every transport (`MockURLSession`, the URLProtocol, cassettes) uses.
    ///
    /// `completion` is called exactly once: before this returns, unless a held response
    /// suspends the exchange until it is released. Latency is not waited for here: the
    /// delivery says how long the transport should take.
    /// - Parameters:
    ///   - bodyIsHidden: A body was sent that the transport cannot see (an upload task
    ///     through a URLProtocol); body conditions then fail and say so.
    ///   - cancellation: Cancelled by the transport when its task is: a held response then
    ///     stops waiting, and its release delivers `URLError(.cancelled)` without storing its
    ///     cookies or following its redirect.
    package func exchange(
        _ request: URLRequest, behaviour: SessionBehaviour, bodyIsHidden: Bool = false,
        cancellation: ExchangeCancellation = ExchangeCancellation(),
        completion: @escaping @Sendable (ExchangeResult) -> Void
    ) {
        let request = behaviour.addingCookies(to: request)
        var start = Delivery(request: request, arguments: (nil, nil, nil))
        switch behaviour.cacheDecision(for: request) {
        case .load:
            hop(request, behaviour: behaviour, bodyIsHidden: bodyIsHidden, cancellation: cancellation, progress: start, completion)
        case .answer(let stored):
            // Not sent: no stub sees it, as no server would.
            start.data = stored.data
            start.response = stored.response
            completion(.answer(Answer(start)))
        case .unavailable:
            start.error = URLError(
                .resourceUnavailable,
                userInfo: [
                    NSURLErrorFailingURLErrorKey: request.url as Any,
                    NSLocalizedDescriptionKey: "Nothing is cached for \(request.url?.absoluteString ?? "the request"), "
                        + "and its cache policy (.returnCacheDataDontLoad) does not allow loading it.",
                ])
            completion(.answer(Answer(start)))
        case .revalidate(let conditional, let stored):
            start.revalidating = stored
            hop(conditional, behaviour: behaviour, bodyIsHidden: bodyIsHidden, cancellation: cancellation, progress: start, completion)
        }
    }

    /// One request of the chain; `progress` carries the hops so far (latency, stubs).
    private func hop(
        _ request: URLRequest, behaviour: SessionBehaviour, bodyIsHidden: Bool, cancellation: ExchangeCancellation,
        progress: Delivery, _ completion: @escaping @Sendable (ExchangeResult) -> Void
    ) {
        var delivery = progress
        delivery.request = request
        guard !cancellation.isCancelled else {
            // Cancelled during the hop before: the next one is never sent.
            delivery.error = URLError(.cancelled, userInfo: [NSURLErrorFailingURLErrorKey: request.url as Any])
            completion(.answer(Answer(delivery)))
            return
        }
        switch resolve(request, reportingMisses: true, bodyIsHidden: bodyIsHidden, answersHeadAsGet: behaviour.answersHeadAsGet) {
        case .passthrough(let forwarded):
            completion(.passthrough(forwarded))
        case .unmatched(let error):
            delivery.error = error
            completion(.answer(Answer(delivery)))
        case .failed(let error):
            delivery.error = error
            completion(.answer(Answer(delivery)))
        case .respond(let response, let recorded, let stub):
            delivery.answered.append((stub, recorded))
            guard let hold = response.hold else {
                answered(response, recorded, stub, behaviour: behaviour, cancellation: cancellation, progress: delivery, completion)
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
            hold.hold(recorded, cancellation: cancellation) { [self, delivery] error in
                guard settles() else { return }
                var released = response
                released.hold = nil
                if let error { released.outcome = .failure(error) }
                answered(released, recorded, stub, behaviour: behaviour, cancellation: cancellation, progress: delivery, completion)
            }
            // Cancelled while held: the gate lets go of the request, and the exchange ends here.
            cancellation.onCancel { [delivery] in
                guard settles() else { return }
                var cancelled = delivery
                cancelled.error = URLError(.cancelled, userInfo: [NSURLErrorFailingURLErrorKey: recorded.url])
                completion(.answer(Answer(cancelled)))
            }
        }
    }

    /// Applies the session's rules to one stub's answer: timeout, cookies, redirect.
    private func answered(
        _ response: MockResponse, _ recorded: RecordedRequest, _ stub: Stub, behaviour: SessionBehaviour,
        cancellation: ExchangeCancellation, progress: Delivery, _ completion: @escaping @Sendable (ExchangeResult) -> Void
    ) {
        var delivery = progress
        let request = recorded.urlRequest
        let timeout = behaviour.timeout(for: request)
        // Only the stub's latency counts: a held response came when the test decided.
        if let timeout, response.latency > timeout {
            delivery.latency += timeout
            delivery.error = URLError(
                .timedOut,
                userInfo: [
                    NSURLErrorFailingURLErrorKey: recorded.url,
                    NSLocalizedDescriptionKey: "The request timed out: the answer of \(stub) comes after \(response.latency) s, "
                        + "later than the timeout of \(timeout) s.",
                ])
            completion(.answer(Answer(delivery)))
            return
        }
        let arguments = response.completionArguments(for: request)
        delivery.data = arguments.0
        delivery.response = arguments.1
        delivery.error = arguments.2
        if case .http(_, let headers, _) = response.outcome { delivery.headerFields = headers }
        delivery.parts = response.deliveredParts(body: arguments.0)
        delivery.latency += response.latency
        // A throttled body's pauses: what a caller of the whole body waits after the headers.
        delivery.downloadTime = response.throughput == nil ? 0 : delivery.parts.reduce(0) { $0 + ($1.pause ?? 0) }
        guard let http = arguments.1 as? HTTPURLResponse, arguments.2 == nil else {
            completion(.answer(Answer(delivery)))
            return
        }
        behaviour.storeCookies(Self.setCookies(of: response, http), from: http.url ?? recorded.url, for: request)
        if let timeout, let silent = delivery.parts.firstIndex(where: { ($0.pause ?? 0) > timeout }) {
            // URLSession's timeout is an idle one: a body that goes quiet for longer fails
            // there, after the parts before it (and is neither cached nor followed).
            let error = URLError(
                .timedOut,
                userInfo: [
                    NSURLErrorFailingURLErrorKey: recorded.url,
                    NSLocalizedDescriptionKey: "The request timed out: the body of \(stub) pauses "
                        + "\(delivery.parts[silent].pause ?? 0) s, longer than the timeout of \(timeout) s.",
                ])
            delivery.parts = Array(delivery.parts[..<silent]) + [.pause(timeout), .failure(error)]
            delivery.downloadTime = delivery.parts.reduce(0) { $0 + ($1.pause ?? 0) }
            delivery.data = nil
            delivery.error = error
            completion(.answer(Answer(delivery)))
            return
        }
        if let stored = delivery.revalidating, delivery.answered.count == 1, http.statusCode == 304 {
            // Still current: the session hands over what it kept, as `URLSession` does.
            delivery.data = stored.data
            delivery.response = stored.response
            delivery.parts = []
            completion(.answer(Answer(delivery)))
            return
        }
        behaviour.storeInCache(http, data: arguments.0 ?? Data(), policy: response.cacheStoragePolicy, for: request)
        guard behaviour.followsRedirects, stub.followsRedirects, let next = SessionBehaviour.redirect(from: request, response: http) else {
            completion(.answer(Answer(delivery)))
            return
        }
        guard delivery.answered.count <= SessionBehaviour.maximumRedirects else {
            delivery.data = nil
            delivery.response = nil
            delivery.error = URLError(
                .httpTooManyRedirects,
                userInfo: [
                    NSURLErrorFailingURLErrorKey: recorded.url,
                    NSLocalizedDescriptionKey: "More than \(SessionBehaviour.maximumRedirects) redirects, the last from \(stub).",
                ])
            completion(.answer(Answer(delivery)))
            return
        }
        // 307 and 308 send the same body again; the others drop it.
        let keepsBody = [307, 308].contains(http.statusCode)
        hop(
            behaviour.addingCookies(to: next), behaviour: behaviour, bodyIsHidden: recorded.isBodyHidden && keepsBody,
            cancellation: cancellation, progress: delivery, completion)
    }

    /// One value per cookie: from the stub's own header list when it has one.
    private static func setCookies(of response: MockResponse, _ http: HTTPURLResponse) -> [String] {
        if case .http(_, let headers, _) = response.outcome { return headers.values(for: "Set-Cookie") }
        return http.value(forHTTPHeaderField: "Set-Cookie").map { [$0] } ?? []
    }
}

/// How an exchange ends: the answer to play, or the request to send to the real network.
package enum ExchangeResult: Sendable {
    case answer(Answer)
    case passthrough(URLRequest)
}
