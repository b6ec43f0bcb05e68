import Foundation
import Testing

@testable import HTTPClient

/// `ChunkStream` as a state machine, driven by random producers and readers: whatever the
/// window, chunk sizes and interleaving, every byte arrives once and in order, a producer that
/// stops when told never holds more than a window and a chunk, and it is always told to go on.
@Suite("Chunk stream properties")
struct ChunkStreamPropertyTests {
    @Test(arguments: 0..<200 as Range<UInt64>)
    func anObedientProducerAndAnyReaderDeliverEveryByteInOrderWithinTheWindow(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let window = Int.random(in: 1...4096, using: &random)
        let largestChunk = Int.random(in: 1...2048, using: &random)
        let total = Int.random(in: 0...40_000, using: &random)
        let (stream, continuation) = ChunkStream.makeStream(window: window)
        let demanded = Locked(false)
        continuation.onDemand = { demanded.withLock { $0 = true } }
        var iterator = stream.makeAsyncIterator()
        var (produced, received, stopped) = (0, 0, false)
        if total == 0 { continuation.finish() }

        while received < total {
            if demanded.withLock({ demanded in
                defer { demanded = false }
                return demanded
            }) {
                #expect(stopped, "seed \(seed): asked to go on without having been stopped")
                stopped = false
            }
            let buffered = stream.bufferedByteCount
            if stopped { #expect(buffered > window / 2, "seed \(seed): stopped and never to be asked for more") }
            if !stopped, produced < total, buffered == 0 || Bool.random(using: &random) {
                let size = min(Int.random(in: 1...largestChunk, using: &random), total - produced)
                let chunk = Data((produced..<produced + size).map { UInt8(truncatingIfNeeded: $0) })
                produced += size
                if continuation.yield(chunk) == .windowFull { stopped = true }
                if produced == total { continuation.finish() }
                #expect(stream.bufferedByteCount < window + largestChunk, "seed \(seed)")
            } else {
                let chunk = try #require(try await iterator.next(), "seed \(seed): ended after \(received) of \(total) bytes")
                let expected = Data((received..<received + chunk.count).map { UInt8(truncatingIfNeeded: $0) })
                #expect(chunk == expected, "seed \(seed): bytes out of order at \(received)")
                received += chunk.count
            }
        }
        #expect(try await iterator.next() == nil, "seed \(seed)")
    }
}
