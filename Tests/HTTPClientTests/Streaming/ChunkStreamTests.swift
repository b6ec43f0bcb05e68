import Foundation
import Testing

@testable import HTTPClient

@Suite("Chunk streams: a bounded window and an unambiguous end")
struct ChunkStreamTests {
    private let chunk = Data(repeating: 1, count: 100)

    @Test func yieldReportsTheWindowFullOnceThenKeepsWhatStillComes() {
        let (stream, continuation) = ChunkStream.makeStream(window: 250)
        #expect(continuation.yield(chunk) == .enqueued)
        #expect(continuation.yield(chunk) == .enqueued)
        #expect(continuation.yield(chunk) == .windowFull)
        #expect(continuation.yield(chunk) == .enqueued)
        #expect(stream.bufferedByteCount == 400)
    }

    @Test func theReaderTakingHalfTheWindowAsksTheProducerForMore() async throws {
        let (stream, continuation) = ChunkStream.makeStream(window: 300)
        let demands = Locked(0)
        continuation.onDemand = { demands.withLock { $0 += 1 } }
        for _ in 0..<3 { continuation.yield(chunk) }
        var iterator = stream.makeAsyncIterator()
        _ = try await iterator.next()
        #expect(demands.current == 0)
        _ = try await iterator.next()
        #expect(demands.current == 1)
    }

    @Test func sendWaitsWhileTheWindowIsFull() async throws {
        let (stream, continuation) = ChunkStream.makeStream(window: 100)
        let sent = Locked(0)
        let producer = Task {
            for _ in 0..<5 where await continuation.send(chunk) { sent.withLock { $0 += 1 } }
            continuation.finish()
        }
        var total = 0
        for try await received in stream {
            #expect(stream.bufferedByteCount <= 100)
            total += received.count
        }
        await producer.value
        #expect(total == 500)
        #expect(sent.current == 5)
    }

    @Test func theSequenceEndsOnlyAfterFinishAndThrowsAFailureAfterTheChunks() async throws {
        let (stream, continuation) = ChunkStream.makeStream()
        continuation.yield(chunk)
        continuation.finish(throwing: URLError(.networkConnectionLost))
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == chunk)
        await #expect(throws: URLError.self) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test func aReaderWaitingForAChunkGetsItWhenItComes() async throws {
        let (stream, continuation) = ChunkStream.makeStream()
        let reader = Task {
            var received: [Data] = []
            for try await chunk in stream { received.append(chunk) }
            return received
        }
        continuation.yield(chunk)
        continuation.finish()
        #expect(try await reader.value == [chunk])
    }

    @Test func aCancelledReaderGetsCancellationErrorEvenWithChunksWaiting() async throws {
        let (stream, continuation) = ChunkStream.makeStream()
        let terminated = Locked(false)
        continuation.onTermination = { terminated.withLock { $0 = true } }
        continuation.yield(chunk)
        let reader = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            for try await _ in stream {}
        }
        await #expect(throws: CancellationError.self) { try await reader.value }
        #expect(terminated.current)
        #expect(continuation.yield(chunk) == .terminated)
    }

    @Test func aReaderCancelledWhileWaitingGetsCancellationError() async throws {
        let (stream, continuation) = ChunkStream.makeStream()
        let (waiting, signal) = AsyncStream<Void>.makeStream()
        continuation.onTermination = { signal.finish() }
        let reader = Task { for try await _ in stream {} }
        // The reader is waiting or about to; either way cancelling it must not end the body.
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        for await _ in waiting {}
    }

    @Test func lettingTheStreamGoTellsTheProducerToStop() {
        let terminated = Locked(false)
        var continuation: ChunkStream.Continuation?
        do {
            let (stream, feed) = ChunkStream.makeStream()
            feed.onTermination = { terminated.withLock { $0 = true } }
            continuation = feed
            _ = stream.makeAsyncIterator()
        }
        #expect(terminated.current)
        #expect(continuation?.yield(chunk) == .terminated)
    }

    @Test func aFinishedStreamLetGoDoesNotCallTermination() {
        let terminated = Locked(false)
        do {
            let (stream, feed) = ChunkStream.makeStream()
            feed.onTermination = { terminated.withLock { $0 = true } }
            feed.finish()
            withExtendedLifetime(stream) {}
        }
        #expect(!terminated.current)
    }

    // MARK: Relaying a session's own sequence

    @Test func aRelayedSequenceArrivesInOrderAndEndsWhenItEnds() async throws {
        let parts = [Data("a".utf8), Data(), Data("bc".utf8)]
        let stream = ChunkStream(relaying: parts.async)
        var received: [Data] = []
        for try await chunk in stream { received.append(chunk) }
        #expect(received == parts)
    }

    @Test func aRelayedSequenceThrowsItsErrorAfterItsChunks() async throws {
        let source = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data("a".utf8))
            continuation.finish(throwing: URLError(.networkConnectionLost))
        }
        var iterator = ChunkStream(relaying: source).makeAsyncIterator()
        #expect(try await iterator.next() == Data("a".utf8))
        await #expect(throws: URLError(.networkConnectionLost)) { try await iterator.next() }
    }

    @Test(.timeLimit(.minutes(10))) func lettingARelayingStreamGoStopsReadingTheSequence() async throws {
        let (stopped, stop) = AsyncStream<Void>.makeStream()
        do {
            // The source never ends by itself: once its first chunk is read, the relay waits
            // on it until the stream's reader leaves.
            let source = AsyncStream<Data> { continuation in
                continuation.onTermination = { _ in
                    stop.yield()
                    stop.finish()
                }
                continuation.yield(Data("a".utf8))
            }
            var reader = ChunkStream(relaying: source).makeAsyncIterator()
            #expect(try await reader.next() == Data("a".utf8))
        }
        var waiting = stopped.makeAsyncIterator()
        #expect(await waiting.next() != nil)
    }
}

/// A `Sendable` async sequence over an array, as a session of one's own might produce.
extension Array where Element: Sendable {
    fileprivate var async: AsyncStream<Element> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}
