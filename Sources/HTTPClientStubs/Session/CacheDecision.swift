import Foundation
import HTTPClient

/// What the session's `URLCache` says about a request before it goes out.
enum CacheDecision {
    /// Send the request; nothing usable is stored (or the policy ignores the cache).
    case load
    /// Answer from the cache without sending anything.
    case answer(CachedURLResponse)
    /// Send `request`, which asks whether the stored answer is still current; a `304` means
    /// the stored answer is delivered.
    case revalidate(URLRequest, stored: CachedURLResponse)
    /// `.returnCacheDataDontLoad` and nothing stored: the request fails without being sent.
    case unavailable
}
