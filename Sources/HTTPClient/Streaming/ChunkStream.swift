import Foundation

/// A response body as a session delivers it, chunk by chunk, through a buffer of bounded size:
/// what ``URLSessionProtocol/chunks(for:)`` returns.
///
/// The producer (the session) adds chunks and, once the chunks waiting for the reader reach the
/// stream's window (``defaultWindow``, 2 MiB), stops until the reader has taken half of them. So
/// a slow reader holds at most about one window of a body of any size, plus what the producer
/// had under way when it was told to stop. A session of your own makes its stream with
/// ``init(relaying:)``.
///
/// The end is never ambiguous: the sequence ends (`nil`) only when the producer finished the
/// body; a transfer cut short throws its error; a reader whose task is cancelled gets
/// `CancellationError` from `next()`, never the end. Letting the stream go, or cancelling the
/// reading task, tells the producer so it can cancel the request.
///
/// Read it once: it is a stream, not a buffer.
public struct ChunkStream: AsyncSequence, Sendable {
    public typealias Element = Data
    public typealias Failure = any Error

    /// The bytes a stream holds for its reader before it asks the producer to stop: 2 MiB.
    public static let defaultWindow = 2 << 20

    private let reader: Reader

    private init(reader: Reader) {
        self.reader = reader
    }

    /// A stream and the continuation that feeds it.
    /// `package`: the sessions of HTTPClientStubs produce their bodies chunk by chunk.
    ///
    /// - Parameter window: The bytes held for the reader before ``Continuation/yield(_:)``
    ///   returns ``Continuation/YieldResult/windowFull`` (at least 1).
    package static func makeStream(window: Int = defaultWindow) -> (stream: ChunkStream, continuation: Continuation) {
        let buffer = ChunkBuffer(window: Swift.max(1, window))
        return (ChunkStream(reader: Reader(buffer)), Continuation(buffer: buffer))
    }

    /// A stream that relays `chunks` as they come, for a session of your own that produces a
    /// body as an async sequence: the stream reads `chunks` only while its reader keeps up
    /// (at most ``defaultWindow`` bytes held), ends when they end, throws what they throw, and
    /// stops reading them (cancelling their task) when the reader lets the stream go.
    ///
    /// ```swift
    /// func chunks(for request: URLRequest) async throws -> (ChunkStream, URLResponse) {
    ///     let (bytes, response) = try await myTransport.open(request)
    ///     return (ChunkStream(relaying: bytes), response)
    /// }
    /// ```
    ///
    /// - Parameter chunks: The body's chunks, in order; empty chunks are passed on.
    public init<Chunks: AsyncSequence & Sendable>(relaying chunks: Chunks) where Chunks.Element == Data {
        let (stream, continuation) = Self.makeStream()
        let relay = Task {
            do {
                for try await chunk in chunks {
                    guard await continuation.send(chunk) else { return }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { relay.cancel() }
        self = stream
    }

    /// A stream that holds `chunks` and ends after them (or throws `error` after them).
    static func finished(_ chunks: [Data], throwing error: (any Error)? = nil) -> ChunkStream {
        let (stream, continuation) = makeStream(window: Int.max)
        for chunk in chunks { continuation.yield(chunk) }
        continuation.finish(throwing: error)
        return stream
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(reader: reader)
    }

    /// The bytes held for the reader now: what tests and measurements of the window read.
    /// The tests of the streams (`@testable`) check the window is honoured.
    var bufferedByteCount: Int { reader.buffer.bufferedByteCount }

    /// Reads the next chunk.
    public struct Iterator: AsyncIteratorProtocol {
        /// A chunk of the body.
        public typealias Element = Data
        /// The transfer's error, or `CancellationError`.
        public typealias Failure = any Error

        let reader: Reader

        /// The next chunk; `nil` once the body is complete. Throws the transfer's error, or
        /// `CancellationError` when the reading task is cancelled.
        public mutating func next() async throws -> Data? {
            try await reader.buffer.next()
        }
    }

    /// The side of the session: adds chunks, learns when to stop and go on, ends the body.
    /// `package`: the sessions of HTTPClientStubs feed their streams with it.
    package struct Continuation: Sendable {
        let buffer: ChunkBuffer

        /// What became of a chunk given to ``yield(_:)``.
        /// `package`: the stubs' chunk feed (HTTPClientStubs) stops producing on ``windowFull``.
        package enum YieldResult: Sendable, Equatable {
            /// Held for the reader; there is room for more.
            case enqueued
            /// Held for the reader, and the window is now full: stop producing until
            /// ``onDemand`` is called. Reported once per filling; chunks yielded meanwhile are
            /// still kept (``enqueued``).
            case windowFull
            /// The reader has gone (or the stream was finished): the chunk was dropped, stop.
            case terminated
        }

        /// Adds `chunk` for the reader.
        /// `package`: the stubs' chunk feed (HTTPClientStubs) adds a stubbed body's chunks without waiting.
        @discardableResult
        package func yield(_ chunk: Data) -> YieldResult {
            buffer.yield(chunk)
        }

        /// Adds `chunk` for the reader, waiting while the window is full.
        /// `package`: cassette recording (HTTPClientStubs) relays the upstream's chunks at the reader's pace.
        ///
        /// - Returns: `false` when the reader has gone: stop producing.
        package func send(_ chunk: Data) async -> Bool {
            await buffer.send(chunk)
        }

        /// Ends the body: complete with no `error`, cut short with one. Later calls do nothing.
        /// `package`: `MockURLSession`, the chunk feed and cassette recording (HTTPClientStubs) end their bodies.
        package func finish(throwing error: (any Error)? = nil) {
            buffer.finish(throwing: error)
        }

        /// Called, on the reader's thread, when a producer stopped by
        /// ``YieldResult/windowFull`` may go on: the reader has taken half the window.
        /// `package`: the stubs' chunk feed (HTTPClientStubs) resumes here after ``YieldResult/windowFull``.
        package var onDemand: (@Sendable () -> Void)? {
            get { buffer.handlers.current.demand }
            nonmutating set { buffer.handlers.withLock { $0.demand = newValue } }
        }

        /// Called once when the reader lets the stream go, or its task is cancelled, before
        /// the body was finished: the producer should cancel the request.
        /// `package`: `MockURLSession` and cassette recording (HTTPClientStubs) cancel their work here.
        package var onTermination: (@Sendable () -> Void)? {
            get { buffer.handlers.current.termination }
            nonmutating set { buffer.handlers.withLock { $0.termination = newValue } }
        }
    }

    /// Ends the stream when the last copy of it and its iterators are gone.
    final class Reader: Sendable {
        let buffer: ChunkBuffer

        init(_ buffer: ChunkBuffer) {
            self.buffer = buffer
        }

        deinit {
            buffer.readerLeft()
        }
    }
}
