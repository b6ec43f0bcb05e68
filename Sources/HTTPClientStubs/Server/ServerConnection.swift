import Dispatch
import Foundation
import HTTPClient

/// One client connection of a ``StubServer``: reads requests (pipelined ones too), answers each
/// through the exchange, and writes the answers in the order the requests came, however late
/// each is decided. Closes on `Connection: close`, malformed input (after its 4xx), a read or
/// idle timeout, a client that takes no answer for the idle timeout, the client going away, or
/// the server stopping.
///
/// A client that ends its sending side (`shutdown(SHUT_WR)`, `nc -N`) may still be reading: the
/// requests it sent whole are answered before the connection closes. Which of the two it did
/// cannot be told from the wire, so an answer still waiting on the test (a ``HeldResponse``)
/// lets go of its request, as for a client that went away.
// @unchecked: every mutable property is read and written on `queue` only (each entry point hops
// onto it), so the state needs no lock of its own.
final class ServerConnection: @unchecked Sendable {
    /// One request's place in the answer order, and what of its answer is still to be written.
    final class Slot: @unchecked Sendable {
        // @unchecked: touched on the connection's queue only, as the connection's own state.
        var pending = Data()
        var finished = false
        var closesConnection = false
        /// Cancelled when the connection closes first: a held response lets go of the request.
        let cancellation = ExchangeCancellation()
    }

    let context: ServerContext
    let queue = DispatchQueue(label: "StubServer.connection")
    private let socket: Socket
    private let onClose: @Sendable (ServerConnection) -> Void
    private let readSource: any DispatchSourceRead
    private let writeSource: any DispatchSourceWrite
    private let timer: any DispatchSourceTimer
    private var parser: HTTPRequestParser
    /// The answers not yet written whole, in request order; only the first writes to the socket.
    private var slots: [Slot] = []
    /// The slot of a request whose head has come and whose body has not.
    private var openSlot: Slot?
    /// Bytes for the socket; those before `written` are sent (dropped once all are, not one
    /// send at a time: a large body would be copied again after every send).
    private var output = Data()
    private var written = 0
    private var isWriteSourceRunning = false
    private var isReadSourceRunning = false
    /// No more requests are read: the last answer closes the connection.
    private var closesAfterAnswers = false
    /// The client ended its sending side: nothing more comes from the socket, but the requests
    /// already in the parser are still answered.
    private(set) var inputEnded = false
    /// The answers are out and the write side shut: what the client still sends is read and dropped
    /// until it closes, so its unread bytes do not make the kernel reset the connection under the answer.
    private var isLingering = false
    private(set) var isClosed = false
    private var openSources = 2

    /// Answers queued beyond this many stop the reading until some are written.
    private static let maximumPipelined = 64
    /// Answer bytes the client has not taken beyond which no further request is read: a client
    /// that pipelines requests and reads nothing must not make the server hold every answer.
    static let maximumUnsent = 1 << 20
    /// Seconds a closing connection waits for the client to close its side.
    private static let lingerTime: TimeInterval = 2

    init(socket: Socket, context: ServerContext, onClose: @escaping @Sendable (ServerConnection) -> Void) {
        self.socket = socket
        self.context = context
        self.onClose = onClose
        parser = HTTPRequestParser(limits: context.configuration.limits)
        readSource = DispatchSource.makeReadSource(fileDescriptor: socket.descriptor, queue: queue)
        writeSource = DispatchSource.makeWriteSource(fileDescriptor: socket.descriptor, queue: queue)
        timer = DispatchSource.makeTimerSource(queue: queue)
        readSource.setEventHandler { [unowned self] in readAvailable() }
        writeSource.setEventHandler { [unowned self] in
            flush()
            readOnIfThereIsRoom()
            // The client took some: its time to take the rest starts again.
            armTimer()
        }
        timer.setEventHandler { [unowned self] in timedOut() }
        // Both sources watch the descriptor: it is closed once neither does. The handlers hold
        // the connection until then.
        let release = { @Sendable [self] in
            openSources -= 1
            if openSources == 0 { socket.close() }
        }
        readSource.setCancelHandler(handler: release)
        writeSource.setCancelHandler(handler: release)
        timer.schedule(deadline: .distantFuture)
        timer.resume()
    }

    /// Starts reading requests.
    func start() {
        queue.async { [self] in
            armTimer()
            resumeReading()
        }
    }

    /// Answers 503 (the server has as many connections as it takes) and closes.
    func refuse() {
        queue.async { [self] in
            fail(status: 503, reason: "the server has \(context.configuration.maximumConnections) connections open, its most")
        }
    }

    /// Closes now: answers not yet written are dropped and their exchanges cancelled.
    func close() {
        queue.async { [self] in tearDown() }
    }

    // MARK: Reading

    private func readAvailable() {
        var ended = false
        withUnsafeTemporaryAllocation(byteCount: 64 * 1024, alignment: 1) { buffer in
            while !ended {
                switch socket.receive(into: buffer) {
                case .bytes(let count):
                    if !isLingering { parser.append(UnsafeRawBufferPointer(rebasing: buffer[..<count])) }
                case .wouldBlock:
                    return
                case .closed:
                    ended = true
                }
            }
        }
        if ended {
            // Lingering, the client closed its side after the answers: done.
            if isLingering { return tearDown() }
            endInput()
        }
        if !isLingering { readRequests() }
        guard !isClosed else { return }
        armTimer()
    }

    /// The client sent its last byte. The requests it sent whole are still answered (by
    /// `readRequests`, as room allows); an exchange waiting on the test lets go of its request,
    /// as for a client that went away, since a client that closed both sides looks the same.
    private func endInput() {
        inputEnded = true
        pauseReading()
        // Answers already decided are unaffected: only a held exchange is still waiting. The open
        // slot's exchange has not started (its body may still be in the parser, whole).
        for slot in slots where slot !== openSlot { slot.cancellation.cancel() }
    }

    /// The parser holds no whole request more: once the input has ended, none will come. A
    /// request left unfinished gets no answer, and the last answer closes the connection (at
    /// once when there is none).
    private func noWholeRequestWaits() {
        guard inputEnded, !closesAfterAnswers else { return }
        if let openSlot {
            openSlot.cancellation.cancel()
            slots.removeAll { $0 === openSlot }
            self.openSlot = nil
        }
        closesAfterAnswers = true
        if slots.isEmpty { flush() }
    }

    /// Starts the answer of every whole request read so far, in order.
    private func readRequests() {
        while !closesAfterAnswers, !isClosed, slots.count < Self.maximumPipelined, !isBackedUp {
            let event: HTTPRequestParser.Event?
            do {
                event = try parser.next()
            } catch {
                return fail(status: error.status, reason: error.reason)
            }
            guard let event else { return noWholeRequestWaits() }
            switch event {
            case .head(let head):
                let slot = Slot()
                slots.append(slot)
                openSlot = slot
                if head.expectsContinue { emit(HTTPResponseWriter.continueResponse, in: slot) }
            case .request(let request):
                let slot = openSlot ?? Slot()
                if openSlot == nil { slots.append(slot) }
                openSlot = nil
                if !request.head.keepsAlive { closesAfterAnswers = true }
                answer(request, in: slot)
            }
        }
        if slots.count >= Self.maximumPipelined || isBackedUp { pauseReading() }
    }

    /// Answers `status` with `reason` after the answers before it, then closes: the bytes after
    /// a malformed request cannot be trusted to start a request.
    /// - Parameter slot: The failing request's place, when it has one already.
    func fail(status: Int, reason: String, in slot: Slot? = nil) {
        guard !isClosed else { return }
        let slot = slot ?? openSlot ?? Slot()
        if !slots.contains(where: { $0 === slot }) { slots.append(slot) }
        openSlot = nil
        closesAfterAnswers = true
        emit(HTTPResponseWriter.errorResponse(status: status, reason: reason), in: slot, finished: true, closesConnection: true)
    }

    private func pauseReading() {
        guard isReadSourceRunning else { return }
        readSource.suspend()
        isReadSourceRunning = false
    }

    private func resumeReading() {
        guard !isReadSourceRunning, !isClosed, !inputEnded else { return }
        readSource.resume()
        isReadSourceRunning = true
    }

    // MARK: Writing

    /// Adds bytes to `slot`'s answer; `finished` ends it. Written at once when every answer
    /// before it is out. Returns `false` when the connection is gone: nothing more is wanted.
    @discardableResult
    func emit(_ bytes: [UInt8], in slot: Slot, finished: Bool = false, closesConnection: Bool = false) -> Bool {
        guard !isClosed, slots.contains(where: { $0 === slot }) else { return false }
        slot.pending.append(contentsOf: bytes)
        if finished {
            slot.finished = true
            slot.closesConnection = closesConnection
        }
        writeReadyAnswers()
        return !isClosed
    }

    /// Moves the first answers' bytes to the socket, each finished one making way for the next.
    private func writeReadyAnswers() {
        while let first = slots.first {
            output.append(first.pending)
            first.pending = Data()
            guard first.finished else { break }
            slots.removeFirst()
            if first.closesConnection {
                closesAfterAnswers = true
                for slot in slots { slot.cancellation.cancel() }
                slots = []
            }
        }
        flush()
        guard !isClosed else { return }
        readOnIfThereIsRoom()
        armTimer()
    }

    /// More than ``maximumUnsent`` bytes of answers wait for the client to take them.
    private var isBackedUp: Bool { output.count - written > Self.maximumUnsent }

    /// Reads (and answers) the requests that wait, once the answers before them leave room.
    private func readOnIfThereIsRoom() {
        guard !isClosed, !closesAfterAnswers, slots.count < Self.maximumPipelined, !isBackedUp else { return }
        resumeReading()
        readRequests()
    }

    /// Writes what the socket takes; waits for it to drain when it takes no more.
    private func flush() {
        while written < output.count {
            let transfer = output.withUnsafeBytes { socket.send(UnsafeRawBufferPointer(rebasing: $0[written...])) }
            switch transfer {
            case .bytes(let count):
                written += count
            case .wouldBlock:
                if written >= 1 << 20 {
                    // A client slower than the answer: keep only what it has not taken.
                    output.removeSubrange(0..<written)
                    written = 0
                }
                if !isWriteSourceRunning {
                    writeSource.resume()
                    isWriteSourceRunning = true
                }
                return
            case .closed:
                return tearDown()
            }
        }
        output.removeAll(keepingCapacity: output.count < 1 << 20)
        written = 0
        if isWriteSourceRunning {
            writeSource.suspend()
            isWriteSourceRunning = false
        }
        if closesAfterAnswers, slots.isEmpty, !isLingering {
            // Nothing to wait for from a client that has said all it will.
            if inputEnded { return tearDown() }
            isLingering = true
            socket.shutdownWrite()
            resumeReading()
            armTimer()
        }
    }

    // MARK: Timeouts and closing

    /// Waits as long as the connection's state allows: the read timeout in the middle of a
    /// request the server is reading (its body included, after its head opened a slot), the
    /// idle timeout between requests and while the client takes none of the answers that wait
    /// for it, the linger time once closing; no limit while answers are being decided and
    /// nothing more is awaited from the client (a held response waits for the test).
    private func armTimer() {
        guard !isClosed else { return }
        let configuration = context.configuration
        let seconds: TimeInterval? =
            if isLingering {
                Self.lingerTime
            } else if isBackedUp {
                configuration.idleTimeout
            } else if closesAfterAnswers || inputEnded {
                nil
            } else if parser.isInsideRequest, isReadSourceRunning {
                // Paused (answers to write first), the server is not reading: no fault of the client.
                configuration.readTimeout
            } else if !slots.isEmpty { nil } else { configuration.idleTimeout }
        guard let seconds else { return timer.schedule(deadline: .distantFuture) }
        timer.schedule(deadline: .now() + min(max(seconds, 0), 1e9))
    }

    private func timedOut() {
        guard !isClosed else { return }
        // A client that takes none of its answers for the idle timeout is given up.
        if isLingering || isBackedUp || (!parser.isInsideRequest && slots.isEmpty) { return tearDown() }
        guard parser.isInsideRequest, !closesAfterAnswers else { return }
        fail(status: 408, reason: "the request did not arrive whole within \(context.configuration.readTimeout) s of quiet")
    }

    /// Closes the connection now and cancels every exchange still in it; once.
    private func tearDown() {
        guard !isClosed else { return }
        isClosed = true
        for slot in slots { slot.cancellation.cancel() }
        openSlot?.cancellation.cancel()
        slots = []
        openSlot = nil
        output = Data()
        written = 0
        timer.cancel()
        readSource.cancel()
        writeSource.cancel()
        // A suspended source never runs its cancel handler (and must not be released): let both run.
        if !isReadSourceRunning { readSource.resume() }
        if !isWriteSourceRunning { writeSource.resume() }
        isReadSourceRunning = true
        isWriteSourceRunning = true
        onClose(self)
    }
}
