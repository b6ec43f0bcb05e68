import Foundation
import HTTPClient

/// The caches that may hold answers: those the engine stored into, and those that held
/// something when a session was made with them (a test may fill one by hand first). Keyed by
/// identity; a reused identity only costs a lookup that finds nothing.
final class HoldingCaches: Sendable {
    static let shared = HoldingCaches()

    private let holding = Locked<Set<ObjectIdentifier>>([])

    func noteHolding(_ cache: URLCache) {
        _ = holding.withLock { $0.insert(ObjectIdentifier(cache)) }
    }

    /// Asked once per session: what a cache holds when the session is made.
    func noteContents(of cache: URLCache) {
        if cache.currentMemoryUsage > 0 || cache.currentDiskUsage > 0 { noteHolding(cache) }
    }

    func mayHold(_ cache: URLCache) -> Bool {
        holding.withLock { $0.contains(ObjectIdentifier(cache)) }
    }
}
