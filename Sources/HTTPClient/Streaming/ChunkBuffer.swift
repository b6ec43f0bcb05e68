import Foundation

/// The state shared by a ``ChunkStream`` and its continuation: the chunks not yet read, how the
/// body ended, the waiting reader and producers. One lock; nothing is called while it is held.
final class ChunkBuffer: Sendable {
    private enum End {
        case finished
        case failed(any Error)
    }

    private struct State {
        var chunks: [Data] = []
        /// The first chunk not read yet (chunks before it are dropped in batches).
        var head = 0
        var bytes = 0
        var end: End?
        /// The reader let go or was cancelled: chunks are dropped from now on.
        var readerGone = false
        /// `yield` reported the window full and `onDemand` was not called since.
        var producerStopped = false
        var waitingReader: CheckedContinuation<Data?, any Error>?
        var waitingSenders: [CheckedContinuation<Bool, Never>] = []

        var isEmpty: Bool { head == chunks.count }

        mutating func popFirst() -> Data {
            let chunk = chunks[head]
            head += 1
            bytes -= chunk.count
            if head == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= chunks.count {
                chunks.removeFirst(head)
                head = 0
            }
            return chunk
        }
    }

    struct Handlers {
        var demand: (@Sendable () -> Void)?
        var termination: (@Sendable () -> Void)?
    }

    let window: Int
    private let state = Locked(State())
    let handlers = Locked(Handlers())

    init(window: Int) {
        self.window = window
    }

    var bufferedByteCount: Int { state.withLock { $0.bytes } }

    // MARK: The producer

    func yield(_ chunk: Data) -> ChunkStream.Continuation.YieldResult {
        let (result, reader) = state.withLock { state -> (ChunkStream.Continuation.YieldResult, CheckedContinuation<Data?, any Error>?) in
            guard !state.readerGone, state.end == nil else { return (.terminated, nil) }
            if let reader = state.waitingReader {
                state.waitingReader = nil
                return (.enqueued, reader)
            }
            state.chunks.append(chunk)
            state.bytes += chunk.count
            guard state.bytes >= window, !state.producerStopped else { return (.enqueued, nil) }
            state.producerStopped = true
            return (.windowFull, nil)
        }
        reader?.resume(returning: chunk)
        return result
    }

    func send(_ chunk: Data) async -> Bool {
        switch yield(chunk) {
        case .terminated: return false
        case .enqueued, .windowFull: break
        }
        return await withCheckedContinuation { (sender: CheckedContinuation<Bool, Never>) in
            let wait = state.withLock { state -> Bool? in
                if state.readerGone { return false }
                guard state.producerStopped else { return true }
                state.waitingSenders.append(sender)
                return nil
            }
            if let wait { sender.resume(returning: wait) }
        }
    }

    func finish(throwing error: (any Error)?) {
        let reader = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
            guard !state.readerGone, state.end == nil else { return nil }
            state.end = error.map(End.failed) ?? .finished
            defer { state.waitingReader = nil }
            return state.waitingReader
        }
        guard let reader else { return }
        // A waiting reader has read everything before: the end is its answer now.
        takeEnd()
        if let error { reader.resume(throwing: error) } else { reader.resume(returning: nil) }
    }

    // MARK: The reader

    func next() async throws -> Data? {
        if Task.isCancelled {
            readerLeft()
            throw CancellationError()
        }
        switch take() {
        case .chunk(let chunk): return chunk
        case .end(let error?): throw error
        case .end(nil): return nil
        case .empty: break
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (reader: CheckedContinuation<Data?, any Error>) in
                let taken = state.withLock { state -> Taken? in
                    if state.readerGone { return .end(CancellationError()) }
                    guard state.isEmpty, state.end == nil else { return nil }
                    state.waitingReader = reader
                    return .empty
                }
                switch taken ?? take() {
                case .empty: return
                case .chunk(let chunk): reader.resume(returning: chunk)
                case .end(let error?): reader.resume(throwing: error)
                case .end(nil): reader.resume(returning: nil)
                }
            }
        } onCancel: {
            readerLeft()
        }
    }

    private enum Taken {
        case chunk(Data)
        case end((any Error)?)
        case empty
    }

    /// The next chunk, or the end, and the producer told to go on when half the window is free.
    private func take() -> Taken {
        let (taken, resumed) = state.withLock { state -> (Taken, [CheckedContinuation<Bool, Never>]?) in
            if state.readerGone { return (.end(CancellationError()), nil) }
            guard !state.isEmpty else {
                guard let end = state.end else { return (.empty, nil) }
                // Told once; afterwards the sequence has ended.
                state.end = .finished
                if case .failed(let error) = end { return (.end(error), nil) }
                return (.end(nil), nil)
            }
            let chunk = state.popFirst()
            guard state.producerStopped, state.bytes <= window / 2 else { return (.chunk(chunk), nil) }
            state.producerStopped = false
            defer { state.waitingSenders = [] }
            return (.chunk(chunk), state.waitingSenders)
        }
        if let resumed {
            for sender in resumed { sender.resume(returning: true) }
            handlers.current.demand?()
        }
        return taken
    }

    /// Marks a failed end as told.
    private func takeEnd() {
        state.withLock { $0.end = .finished }
    }

    /// The reader has gone (let go, or cancelled): drop the chunks, release everyone waiting,
    /// and tell the producer once, unless the body had already been finished.
    func readerLeft() {
        let (reader, senders, producerStillRunning) = state.withLock {
            state -> (CheckedContinuation<Data?, any Error>?, [CheckedContinuation<Bool, Never>], Bool) in
            guard !state.readerGone else { return (nil, [], false) }
            state.readerGone = true
            state.chunks = []
            state.head = 0
            state.bytes = 0
            defer {
                state.waitingReader = nil
                state.waitingSenders = []
            }
            return (state.waitingReader, state.waitingSenders, state.end == nil)
        }
        reader?.resume(throwing: CancellationError())
        for sender in senders { sender.resume(returning: false) }
        let termination = handlers.withLock { handlers -> (@Sendable () -> Void)? in
            defer { handlers = Handlers() }
            return handlers.termination
        }
        if producerStillRunning { termination?() }
    }
}
