import Foundation

/// The companion sessions behind `URLSession`'s `chunks(for:)` and the progress-reporting
/// `download` and `upload`: for each session that needs one, a session with the same
/// configuration whose delegate passes chunks, files and progress on as they come. (On Linux a
/// task delegate gets no callbacks at all, and a session's delegate is fixed when it is made.)
final class CompanionSessions: Sendable {
    static let shared = CompanionSessions()

    private struct Companion: Sendable {
        weak var owner: URLSession?
        let session: URLSession
        let delegate: CompanionDelegate
    }

    private let companions = Locked<[ObjectIdentifier: Companion]>([:])

    /// The companion of `owner`: made on first use, let go once `owner` is gone.
    func companion(of owner: URLSession) -> (URLSession, CompanionDelegate) {
        let (companion, released) = companions.withLock { companions -> (Companion, [Companion]) in
            // A session's identifier can be reused once it is gone: an entry counts only while
            // its owner lives, and the companions of released sessions are let go here.
            let released = companions.values.filter { $0.owner == nil }
            companions = companions.filter { $0.value.owner != nil }
            if let existing = companions[ObjectIdentifier(owner)], existing.owner === owner { return (existing, released) }
            let delegate = CompanionDelegate()
            let session = URLSession(configuration: owner.configuration, delegate: delegate, delegateQueue: nil)
            let companion = Companion(owner: owner, session: session, delegate: delegate)
            companions[ObjectIdentifier(owner)] = companion
            return (companion, released)
        }
        // Tasks still running on a released companion finish first.
        for old in released { old.session.finishTasksAndInvalidate() }
        return (companion.session, companion.delegate)
    }
}
