import Foundation
import HTTPClient

/// Hands a stub's body parts to a `chunks(for:)` caller: the in-process sessions' one way.
enum ChunkFeed {
    /// Feeds a delivery's body to `chunks` (its parts, or its data as one chunk) and returns its
    /// response; a delivery that failed before any response finishes `chunks` with its error
    /// and returns it.
    static func feed(
        _ delivery: Delivery, to chunks: AsyncThrowingStream<Data, any Error>.Continuation, waitingOutPauses: Bool
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

    /// Yields every data part, then finishes (or fails at a `.failure` part). Pauses are waited
    /// out only when `waitingOutPauses`; otherwise everything is ready when this returns.
    static func feed(_ parts: [StreamPart], to chunks: AsyncThrowingStream<Data, any Error>.Continuation, waitingOutPauses: Bool) {
        if waitingOutPauses, parts.contains(where: { if case .pause = $0 { true } else { false } }) {
            Task { await feedWaiting(parts, to: chunks) }
        } else {
            feedAtOnce(parts, to: chunks)
        }
    }

    private static func feedAtOnce(_ parts: [StreamPart], to chunks: AsyncThrowingStream<Data, any Error>.Continuation) {
        for part in parts {
            switch part {
            case .data(let data) where !data.isEmpty: chunks.yield(data)
            case .data, .pause: continue
            case .failure(let error):
                chunks.finish(throwing: error)
                return
            }
        }
        chunks.finish()
    }

    private static func feedWaiting(_ parts: [StreamPart], to chunks: AsyncThrowingStream<Data, any Error>.Continuation) async {
        for (index, part) in parts.enumerated() {
            switch part {
            case .data(let data):
                // The consumer has stopped: nothing more to deliver.
                if !data.isEmpty, case .terminated = chunks.yield(data) { return }
            case .failure:
                feedAtOnce(Array(parts[index...]), to: chunks)
                return
            case .pause(let seconds):
                do {
                    // Clamped: a pause of 1e20 s (or NaN) must not overflow the conversion.
                    try await Task.sleep(nanoseconds: UInt64((seconds.isNaN ? 0 : min(max(0, seconds), 1e9)) * 1e9))
                } catch {
                    return
                }
            }
        }
        chunks.finish()
    }
}
