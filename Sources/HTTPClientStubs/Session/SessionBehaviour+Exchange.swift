import Foundation
import HTTPClient

extension SessionBehaviour {
    /// Answers `request` from `registry` as a `URLSession` with this behaviour would see it
    /// answered: stored cookies are added, the cache consulted and filled, each response's
    /// cookies stored, redirects followed (each hop answered and recorded by the registry like
    /// any request), and an answer later than the timeout replaced by `URLError(.timedOut)`.
    /// The layer the two transports that emulate a `URLSession` (`MockURLSession`, the
    /// URLProtocol) put around the engine; a server asks the registry itself.
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
        _ request: URLRequest, through registry: StubRegistry, bodyIsHidden: Bool = false,
        cancellation: ExchangeCancellation = ExchangeCancellation(),
        completion: @escaping @Sendable (ExchangeResult) -> Void
    ) {
        let request = addingCookies(to: request)
        var start = Delivery(request: request, arguments: (nil, nil, nil))
        switch cacheDecision(for: request) {
        case .load:
            hop(request, registry, bodyIsHidden: bodyIsHidden, cancellation: cancellation, progress: start, completion)
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
            hop(conditional, registry, bodyIsHidden: bodyIsHidden, cancellation: cancellation, progress: start, completion)
        }
    }

    /// One request of the chain; `progress` carries the hops so far (latency, stubs).
    private func hop(
        _ request: URLRequest, _ registry: StubRegistry, bodyIsHidden: Bool, cancellation: ExchangeCancellation,
        progress: Delivery, _ completion: @escaping @Sendable (ExchangeResult) -> Void
    ) {
        var hop = progress
        hop.request = request
        let delivery = hop
        registry.respond(to: request, bodyIsHidden: bodyIsHidden, cancellation: cancellation) { answer in
            var delivery = delivery
            switch answer {
            case .passthrough(let forwarded):
                completion(.passthrough(forwarded))
            case .failed(let error):
                delivery.error = error
                completion(.answer(Answer(delivery)))
            case .respond(let response, let recorded, let stub):
                answered(response, recorded, stub, registry, cancellation: cancellation, progress: delivery, completion)
            }
        }
    }

    /// Applies the session's rules to one stub's answer: timeout, cookies, redirect.
    private func answered(
        _ response: MockResponse, _ recorded: RecordedRequest, _ stub: Stub, _ registry: StubRegistry,
        cancellation: ExchangeCancellation, progress: Delivery, _ completion: @escaping @Sendable (ExchangeResult) -> Void
    ) {
        var delivery = progress
        let request = recorded.urlRequest
        let timeout = timeout(for: request)
        let response = response.asReceivedBySession(for: recorded)
        // Only the stub's latency counts: a held response came when the test decided.
        if let timeout, response.latency > timeout {
            delivery.answered.append((stub, recorded))
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
        delivery.take(response, of: stub, to: recorded)
        guard let http = delivery.response as? HTTPURLResponse, delivery.error == nil else {
            completion(.answer(Answer(delivery)))
            return
        }
        storeCookies(Self.setCookies(of: response, http), from: http.url ?? recorded.url, for: request)
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
        storeInCache(http, data: delivery.data ?? Data(), policy: response.cacheStoragePolicy, for: request)
        guard followsRedirects, stub.followsRedirects, let next = SessionBehaviour.redirect(from: request, response: http) else {
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
            addingCookies(to: next), registry, bodyIsHidden: recorded.isBodyHidden && keepsBody, cancellation: cancellation,
            progress: delivery, completion)
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
