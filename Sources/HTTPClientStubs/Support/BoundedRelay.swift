import Foundation
import HTTPClient

/// Work run in order on a serial queue of its own, for a caller that must not wait for it (a log
/// written to an output nobody reads, or a closure that blocks). What waits is bounded by count
/// and by the bytes it carries: past either bound, work is dropped and counted, and the next work
/// that runs is told how many went before it.
package final class BoundedRelay: Sendable {
    private let queue: DispatchQueue
    private let maximumWaiting: Int
    private let maximumWaitingBytes: Int
    /// Work handed to the queue and not yet done, the bytes it carries, and the work dropped
    /// since the last that ran.
    private let counts = Locked((waiting: 0, bytes: 0, dropped: 0))

    /// - Parameters:
    ///   - label: The queue's label.
    ///   - maximumWaiting: How much work may wait at once.
    ///   - maximumWaitingBytes: How many bytes the waiting work may carry (what `send` says of
    ///     each); a piece larger than this alone still runs when nothing else waits.
    package init(label: String, maximumWaiting: Int, maximumWaitingBytes: Int) {
        queue = DispatchQueue(label: label)
        self.maximumWaiting = maximumWaiting
        self.maximumWaitingBytes = maximumWaitingBytes
    }

    /// Runs `work` after the work sent before it, unless too much waits: then it is dropped.
    /// `work` gets how many pieces were dropped since the last that ran.
    ///
    /// - Parameter bytes: What `work` holds on to until it runs (the text it writes, say).
    package func send(bytes: Int, _ work: @escaping @Sendable (_ droppedBefore: Int) -> Void) {
        let taken = counts.withLock { counts in
            guard counts.waiting < maximumWaiting, counts.waiting == 0 || counts.bytes + bytes <= maximumWaitingBytes else {
                counts.dropped += 1
                return false
            }
            counts.waiting += 1
            counts.bytes += bytes
            return true
        }
        guard taken else { return }
        queue.async { [counts] in
            let dropped = counts.withLock { counts in
                defer { counts.dropped = 0 }
                return counts.dropped
            }
            work(dropped)
            counts.withLock { counts in
                counts.waiting -= 1
                counts.bytes -= bytes
            }
        }
    }
}
