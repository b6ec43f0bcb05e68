import Foundation
import HTTPClient

/// What a `URLSession` does around each response, which both stub transports reproduce so a
/// stubbed session behaves like a real one: cookies in and out, redirects, request timeouts, the response cache.
/// Read from the `URLSessionConfiguration` the session was made with.
package struct SessionBehaviour: Sendable {
    /// Where `Set-Cookie` lands and where `Cookie` comes from; `nil` keeps no cookies.
    package var cookieStorage: HTTPCookieStorage?
    /// The configuration's `httpCookieAcceptPolicy`.
    package var cookieAcceptPolicy: HTTPCookie.AcceptPolicy
    /// The configuration's `httpShouldSetCookies`: whether requests carry stored cookies.
    package var sendsCookies: Bool
    /// The configuration's `timeoutIntervalForRequest`.
    package var timeoutForRequest: TimeInterval
    /// Whether 3xx answers with `Location` are followed.
    package var followsRedirects: Bool
    /// The configuration's `urlCache`: where cacheable answers are kept (see `cacheDecision`).
    package var urlCache: URLCache?
    /// The configuration's `requestCachePolicy`, for requests that leave theirs at the default.
    package var requestCachePolicy: URLRequest.CachePolicy
    /// Set when ``cookieStorage`` is a jar nobody outside the engine has seen yet (see
    /// ``PrivateCookieJar``): while it is known to be empty, no request asks it for cookies.
    package var privateJar: PrivateCookieJar?

    /// The most hops followed before a request fails with `URLError(.httpTooManyRedirects)`:
    /// 16, the limit Apple's URL loading system uses.
    package static let maximumRedirects = 16

    package init(configuration: URLSessionConfiguration, followsRedirects: Bool = true) {
        cookieStorage = configuration.httpCookieStorage
        cookieAcceptPolicy = configuration.httpCookieAcceptPolicy
        sendsCookies = configuration.httpShouldSetCookies
        timeoutForRequest = configuration.timeoutIntervalForRequest
        self.followsRedirects = followsRedirects
        urlCache = configuration.urlCache
        requestCachePolicy = configuration.requestCachePolicy
        if let cache = urlCache { HoldingCaches.shared.noteContents(of: cache) }
    }

    /// Sessions whose behaviour is the same share a URLProtocol class.
    struct Key: Hashable {
        let cookieStorage: ObjectIdentifier?
        let cookieAcceptPolicy: UInt
        let sendsCookies: Bool
        let timeoutForRequest: TimeInterval
        let followsRedirects: Bool
        let urlCache: ObjectIdentifier?
        let requestCachePolicy: UInt
    }

    var key: Key {
        Key(
            cookieStorage: cookieStorage.map(ObjectIdentifier.init), cookieAcceptPolicy: cookieAcceptPolicy.rawValue,
            sendsCookies: sendsCookies, timeoutForRequest: timeoutForRequest, followsRedirects: followsRedirects,
            urlCache: urlCache.map(ObjectIdentifier.init), requestCachePolicy: requestCachePolicy.rawValue)
    }

    // MARK: Timeouts

    /// How long the session waits for `request`'s response: the shorter of the request's
    /// `timeoutInterval` and the configuration's; `nil` when neither limits it.
    func timeout(for request: URLRequest) -> TimeInterval? {
        let limit = { (seconds: TimeInterval) in seconds > 0 && seconds.isFinite ? seconds : nil }
        switch (limit(request.timeoutInterval), limit(timeoutForRequest)) {
        case (let a?, let b?): return min(a, b)
        case (let a, let b): return a ?? b
        }
    }

    // MARK: Cookies

    /// Adds the stored cookies for `request`'s URL, unless it has a `Cookie` header of its own
    /// or opted out (`httpShouldHandleCookies`).
    func addingCookies(to request: URLRequest) -> URLRequest {
        guard sendsCookies, privateJar?.isKnownEmpty != true, request.httpShouldHandleCookies, let storage = cookieStorage,
            let url = request.url
        else { return request }
        // The storage first: it is usually empty, and a header lookup costs more than asking it.
        let cookies = CookieRules.cookies(for: url, in: storage)
        guard !cookies.isEmpty, request.value(forHTTPHeaderField: "Cookie") == nil else { return request }
        var request = request
        for (name, value) in HTTPCookie.requestHeaderFields(with: cookies) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return request
    }

    /// Stores the cookies of a response to `request` from `url`, as the accept policy and
    /// RFC 6265 allow (``CookieRules``). `setCookies` holds one `Set-Cookie` value per cookie:
    /// joined into one field they are ambiguous (an `Expires` date has a comma).
    func storeCookies(_ setCookies: [String], from url: URL, for request: URLRequest) {
        guard !setCookies.isEmpty, request.httpShouldHandleCookies, cookieAcceptPolicy != .never, let storage = cookieStorage
        else { return }
        if cookieAcceptPolicy == .onlyFromMainDocumentDomain, let main = request.mainDocumentURL?.host?.lowercased(),
            let host = url.host?.lowercased(), host != main, !host.hasSuffix("." + main)
        {
            return
        }
        privateJar?.noteMayHoldCookies()
        CookieRules.apply(setCookies, from: url, to: storage)
    }

    // MARK: Redirects

    /// The request `URLSession` sends next for a redirect, or `nil` when `response` is not one
    /// it follows (not 301/302/303/307/308, no `Location`, or one that is not an http(s) URL).
    ///
    /// 303 turns every method but HEAD into GET and never carries a body (a HEAD stays HEAD,
    /// without one); 301 and 302 turn POST into GET without its body, as browsers and
    /// `URLSession` do, and keep any other method with its body; 307 and 308 keep method and
    /// body. A dropped body takes its headers with it. The headers of
    /// ``headersDroppedOnRedirect`` are not carried to the next hop, whatever its origin; every
    /// other header is. Cookies for the new URL come from the storage.
    static func redirect(from request: URLRequest, response: HTTPURLResponse) -> URLRequest? {
        guard [301, 302, 303, 307, 308].contains(response.statusCode),
            let location = response.value(forHTTPHeaderField: "Location"),
            let target = URL(string: location, relativeTo: response.url ?? request.url)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https", target.host != nil
        else { return nil }
        var next = request
        next.url = target
        let method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        let becomesGet = (response.statusCode == 303 && method != .head) || ([301, 302].contains(response.statusCode) && method == .post)
        if becomesGet { next.httpMethod = "GET" }
        if becomesGet || response.statusCode == 303 {
            next.httpBody = nil
            next.httpBodyStream = nil
            for name in ["Content-Type", "Content-Length", "Content-Encoding"] { next.setValue(nil, forHTTPHeaderField: name) }
        }
        for name in headersDroppedOnRedirect { next.setValue(nil, forHTTPHeaderField: name) }
        return next
    }

    /// The request headers a followed redirect does not carry to the next hop, on the same
    /// origin or another: the ones Apple's `URLRequest` documentation reserves for the loading
    /// system (credentials, the connection, the host), which `URLSession` on Apple platforms is
    /// seen not to resend on a redirect (an `Authorization` set by hand is gone on the next hop
    /// even to the same host), and `Cookie`, which the storage sets again for the new URL.
    /// swift-corelibs-foundation keeps every header on every hop; the stubs follow Apple, the
    /// stricter of the two, so a test on Linux does not pass on a credential an iPhone drops.
    static let headersDroppedOnRedirect = [
        "Authorization", "Proxy-Authorization", "Proxy-Authenticate", "WWW-Authenticate", "Connection", "Host", "Cookie",
    ]
}
