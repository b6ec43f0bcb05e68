import Foundation
import HTTPClient

/// The session's response cache, as the URL loading system uses it: GET answers a stub marks
/// cacheable (``MockResponse/cached(_:)``) are stored in the configuration's `URLCache`, and
/// later requests are answered from it per their cache policy. The engine does this itself
/// because swift-corelibs-foundation never caches a URLProtocol's responses (measured: a
/// protocol reporting `.allowed` leaves the cache empty), so cache-dependent code behaves the
/// same on every platform and transport.
///
/// Freshness follows RFC 9111 for a private cache, without heuristics: `Cache-Control:
/// max-age` (else `Expires` minus `Date`) against the age since `Date` (else since storing);
/// `no-cache` or a stale answer is revalidated with `If-None-Match` / `If-Modified-Since` when
/// it has a validator, and loaded again when it has none. A stored answer serves only requests
/// whose headers named by its `Vary` match those of the request that stored it.
extension SessionBehaviour {
    func cacheDecision(for request: URLRequest, now: Date = Date()) -> CacheDecision {
        // A lookup in corelibs' URLCache costs about 15 µs, five times a whole mocked round
        // trip: only caches known to hold something are asked.
        guard let cache = urlCache, Self.isCacheable(method: request.httpMethod) else { return .load }
        let policy = request.cachePolicy == .useProtocolCachePolicy ? requestCachePolicy : request.cachePolicy
        let mayHold = HoldingCaches.shared.mayHold(cache)
        switch policy {
        case .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData, .reloadRevalidatingCacheData:
            return .load
        case .returnCacheDataElseLoad:
            guard mayHold else { return .load }
            return Self.storedAnswer(for: request, in: cache).map(CacheDecision.answer) ?? .load
        case .returnCacheDataDontLoad:
            guard mayHold else { return .unavailable }
            return Self.storedAnswer(for: request, in: cache).map(CacheDecision.answer) ?? .unavailable
        case .useProtocolCachePolicy:
            break
        @unknown default:
            return .load
        }
        guard mayHold, let stored = Self.storedAnswer(for: request, in: cache), let response = stored.response as? HTTPURLResponse else {
            return .load
        }
        let requestDirectives = CacheControl(request.value(forHTTPHeaderField: "Cache-Control"))
        let directives = CacheControl(response.value(forHTTPHeaderField: "Cache-Control"))
        if !requestDirectives.noCache, !directives.noCache, let lifetime = Self.freshnessLifetime(response, directives, now: now),
            Self.age(of: stored, response, now: now) < lifetime
        {
            return .answer(stored)
        }
        let tag = response.value(forHTTPHeaderField: "ETag")
        let modified = response.value(forHTTPHeaderField: "Last-Modified")
        guard tag != nil || modified != nil else { return .load }
        var conditional = request
        if let tag { conditional.setValue(tag, forHTTPHeaderField: "If-None-Match") }
        if let modified { conditional.setValue(modified, forHTTPHeaderField: "If-Modified-Since") }
        return .revalidate(conditional, stored: stored)
    }

    /// Stores a final answer to `request` when the stub allowed it and HTTP does.
    func storeInCache(
        _ response: HTTPURLResponse, data: Data, policy: URLCache.StoragePolicy, for request: URLRequest, now: Date = Date()
    ) {
        guard policy != .notAllowed, let cache = urlCache, Self.isCacheable(method: request.httpMethod),
            (200..<300).contains(response.statusCode),
            !CacheControl(response.value(forHTTPHeaderField: "Cache-Control")).noStore,
            !CacheControl(request.value(forHTTPHeaderField: "Cache-Control")).noStore
        else { return }
        let entry = CachedURLResponse(
            response: response, data: data,
            userInfo: [Self.storedAtKey: now, Self.varyingKey: Self.varyingHeaders(of: response, in: request)],
            storagePolicy: policy)
        cache.storeCachedResponse(entry, for: request)
        HoldingCaches.shared.noteHolding(cache)
    }

    private static let storedAtKey = "HTTPClientStubs.storedAt"
    private static let varyingKey = "HTTPClientStubs.varying"

    /// The stored answer for `request`, if it may be used for it (RFC 9111 section 4.1): every
    /// header its `Vary` lists has the value it had in the request that stored it (absent stays
    /// absent), and `Vary: *` is never used.
    private static func storedAnswer(for request: URLRequest, in cache: URLCache) -> CachedURLResponse? {
        guard let stored = cache.cachedResponse(for: request) else { return nil }
        guard let response = stored.response as? HTTPURLResponse, let vary = response.value(forHTTPHeaderField: "Vary") else {
            return stored
        }
        let names = varyNames(vary)
        guard !names.contains("*"), let kept = stored.userInfo?[varyingKey] as? [String: String] else { return nil }
        let current = values(of: names, in: request)
        return current == kept ? stored : nil
    }

    /// The request's values of the headers `response` varies on, kept with the stored answer.
    private static func varyingHeaders(of response: HTTPURLResponse, in request: URLRequest) -> [String: String] {
        values(of: varyNames(response.value(forHTTPHeaderField: "Vary") ?? ""), in: request)
    }

    private static func varyNames(_ vary: String) -> [String] {
        vary.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    /// Lower-cased names to trimmed values; a header the request lacks has no entry.
    private static func values(of names: [String], in request: URLRequest) -> [String: String] {
        var values: [String: String] = [:]
        for name in names where name != "*" {
            if let value = request.value(forHTTPHeaderField: name) { values[name] = value.trimmingCharacters(in: .whitespaces) }
        }
        return values
    }

    private static func isCacheable(method: String?) -> Bool {
        // The exact spelling first: upper-casing allocates, on every request.
        guard let method, method != "GET" else { return true }
        return method.uppercased() == "GET"
    }

    /// Seconds the stored answer stays fresh, or `nil` when it does not say.
    private static func freshnessLifetime(_ response: HTTPURLResponse, _ directives: CacheControl, now: Date) -> TimeInterval? {
        if let maxAge = directives.maxAge { return maxAge }
        // An `Expires` that does not parse means "already expired".
        guard let expires = response.value(forHTTPHeaderField: "Expires") else { return nil }
        guard let expiry = Timestamps.httpDate(expires, now: now) else { return 0 }
        let date = response.value(forHTTPHeaderField: "Date").flatMap { Timestamps.httpDate($0, now: now) } ?? now
        return expiry.timeIntervalSince(date)
    }

    private static func age(of stored: CachedURLResponse, _ response: HTTPURLResponse, now: Date) -> TimeInterval {
        let since =
            response.value(forHTTPHeaderField: "Date").flatMap { Timestamps.httpDate($0, now: now) }
            ?? (stored.userInfo?[storedAtKey] as? Date)
            ?? .distantPast
        return max(0, now.timeIntervalSince(since))
    }
}

/// The directives of a `Cache-Control` field that the session's cache looks at.
private struct CacheControl {
    var noCache = false
    var noStore = false
    var maxAge: TimeInterval?

    init(_ field: String?) {
        for part in (field ?? "").split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            let name = pair.first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            switch name {
            case "no-cache": noCache = true
            case "no-store": noStore = true
            case "max-age":
                // A malformed or negative value makes the answer stale, as RFC 9111 asks.
                let value = pair.count == 2 ? pair[1].trimmingCharacters(in: CharacterSet(charactersIn: " \"")) : ""
                maxAge = UInt32(value).map(TimeInterval.init) ?? 0
            default: continue
            }
        }
    }
}
