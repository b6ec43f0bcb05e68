import Foundation
import HTTPClient

/// Hands a stub's body parts to a `chunks(for:)` caller: the in-process sessions' one way.
///
/// Parts are yielded until the stream's window is full, then the feed waits for the reader to
/// ask for more (``ChunkStream/Continuation/onDemand``), as a session stops reading from the
/// network: a slow reader never holds more than a window of a stub's body.
final class ChunkFeed: Sendable {
    private struct State {
        var next = 0
        /// A `run()` is yielding parts; a demand meanwhile sets `demanded` instead of running.
        var running = false
        var demanded = false
        /// A pause is being waited out: only its timer goes on.
        var pausing = false
    }

    private let parts: [StreamPart]
    private let chunks: ChunkStream.Continuation
    private let waitingOutPauses: Bool
    private let state = Locked(State())

    private init(_ parts: [StreamPart], to chunks: ChunkStream.Continuation, waitingOutPauses: Bool) {
        self.parts = parts
        self.chunks = chunks
        self.waitingOutPauses = waitingOutPauses
    }

    /// Feeds a delivery's body to `chunks` (its parts, or its data as one chunk) and returns its
    /// response; a delivery that failed before any response finishes `chunks` with its error
    /// and returns it.
    static func feed(
        _ delivery: Delivery, to chunks: ChunkStream.Continuation, waitingOutPauses: Bool
    ) -> Result<URLResponse, any Error> {
        // A streamed failure comes after its chunks; any other error means no response.
        guard let response = delivery.response, delivery.error == nil || !delivery.parts.isEmpty else {
            let error = delivery.error ?? URLError(.badServerResponse)
            chunks.finish(throwing: error)
            return .failure(error)
        }
        feed(delivery.parts.isEmpty ? [.data(delivery.data ?? Data())] : delivery.parts, to: chunks, waitingOutPauses: waitingOutPauses)
        return .success(response)
    }

    /// Yields the data parts in order, then finishes (or fails at a `.failure` part). Pauses
    /// are waited out only when `waitingOutPauses`; otherwise the first window of chunks is
    /// ready when this returns, and the rest follows as the reader takes them.
    static func feed(_ parts: [StreamPart], to chunks: ChunkStream.Continuation, waitingOutPauses: Bool) {
        let feed = ChunkFeed(parts, to: chunks, waitingOutPauses: waitingOutPauses)
        chunks.onDemand = { feed.run() }
        feed.run()
    }

    /// Yields parts until the window is full, a pause is to be waited out, or the end.
    private func run(afterPause: Bool = false) {
        let starts = state.withLock { state -> Bool in
            if afterPause { state.pausing = false } else if state.pausing { return false }
            guard !state.running else {
                state.demanded = true
                return false
            }
            state.running = true
            return true
        }
        guard starts else { return }
        while true {
            let part = state.withLock { state -> StreamPart? in
                // A demand before this yield is answered by it.
                state.demanded = false
                guard state.next < parts.count else { return nil }
                defer { state.next += 1 }
                return parts[state.next]
            }
            switch part {
            case nil:
                chunks.finish()
                return
            case .failure(let error):
                chunks.finish(throwing: error)
                return
            case .data(let data) where data.isEmpty:
                continue
            case .data(let data):
                switch chunks.yield(data) {
                case .enqueued: continue
                case .terminated: return
                case .windowFull:
                    // Stopped, unless the reader asked for more while this was yielding.
                    let stops = state.withLock { state -> Bool in
                        guard !state.demanded else { return false }
                        state.running = false
                        return true
                    }
                    if stops { return }
                }
            case .pause(let seconds):
                guard waitingOutPauses else { continue }
                state.withLock {
                    $0.pausing = true
                    $0.running = false
                }
                // Clamped: a pause of 1e20 s (or NaN) must not overflow the conversion.
                let delay = seconds.isNaN ? 0 : min(max(0, seconds), 1e9)
                DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in run(afterPause: true) }
                return
            }
        }
    }
}
