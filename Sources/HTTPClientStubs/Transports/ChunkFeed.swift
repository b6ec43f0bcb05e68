import Foundation
import HTTPClient

/// Plays an answer into a `chunks(for:)` stream: the in-process sessions' adapter of
/// ``AnswerPlayer``.
///
/// The head goes to `head` (or the failure before it), each piece to the stream until its
/// window is full; the player then waits for the reader to ask for more
/// (``ChunkStream/Continuation/onDemand``), as a session stops reading from the network: a slow
/// reader never holds more than a window of a stub's body.
enum ChunkFeed {
    /// A player of `answer` into `chunks`, not started: ``AnswerPlayer/play()`` starts it.
    /// - Parameters:
    ///   - waitsOutTime: Whether the latency and the pauses are waited out.
    ///   - head: Called once, with the response when the head is played, or the failure that
    ///     comes before it.
    static func player(
        for answer: Answer, into chunks: ChunkStream.Continuation, waitsOutTime: Bool,
        head: @escaping @Sendable (Result<URLResponse, any Error>) -> Void
    ) -> AnswerPlayer {
        let headGiven = Locked(false)
        let giveHead = { @Sendable (result: Result<URLResponse, any Error>) in
            let first = headGiven.withLock { given in
                defer { given = true }
                return !given
            }
            if first { head(result) }
        }
        let player = AnswerPlayer(answer, waitsOutTime: waitsOutTime) { step in
            switch step {
            case .wait:
                return .more
            case .head(let response, _):
                giveHead(.success(response))
                return .more
            case .data(let data):
                switch chunks.yield(data) {
                case .enqueued: return .more
                case .windowFull: return .full
                case .terminated: return .stop
                }
            case .end:
                chunks.finish()
                return .more
            case .fail(let error):
                giveHead(.failure(error))
                chunks.finish(throwing: error)
                return .more
            }
        }
        chunks.onDemand = { player.roomAvailable() }
        return player
    }
}
