import Dispatch
import Foundation
import HTTPClient

/// One client connection of a ``StubServer``: reads requests (pipelined ones too), answers each
/// through the exchange, and writes the answers in the order the requests came, however late
/// each is decided. Closes on `Connection: close`, malformed input (after its 4xx), a head that
/// does not arrive whole in time, a body that goes quiet, an idle or unread connection, the
/// client going away, or the server stopping.
///
/// It lives on one ``EventLoop``: every method runs on that loop's thread (other threads hop
/// there with `loop.execute`), so its state needs no lock.
///
/// What it holds is bounded whatever the client does. It reads only what it will use: one read
/// at a time, parsed before the next, and none while it may not start another request (after one
/// that closes the connection, with ``maximumPipelined`` answers waiting, or while the client
/// leaves more than ``maximumUnsent`` bytes of answers unread). An answer's body is held once (the
/// stub's own bytes, written from where they are).
///
/// A client that ends its sending side (`shutdown(SHUT_WR)`, `nc -N`) may still be reading: the
/// requests it sent whole are answered before the connection closes. Which of the two it did
/// cannot be told from the wire, so an answer still waiting on the test (a ``HeldResponse``)
/// lets go of its request, as for a client that went away.
// @unchecked: every mutable property is touched on `loop`'s thread only.
final class ServerConnection: ReadinessHandler, @unchecked Sendable {
    /// One request's place in the answer order, and what of its answer is still to be written.
    final class Slot: @unchecked Sendable {
        // @unchecked: touched on the connection's loop only, as the connection's own state.
        var pending: [Data] = []
        var finished = false
        var closesConnection = false
        /// How the connection ends after this answer when it breaks rather than closes.
        var breaks: Break?
        /// Cancelled when the connection closes first: a held response lets go of the request.
        let cancellation = ExchangeCancellation()
        /// What plays the answer, once it is decided: stopped when the connection closes, and
        /// told when a slow reader has taken enough for the stream to go on.
        var player: AnswerPlayer?
    }

    /// A connection ending that is not a close in good order: a stub's ``StubFault``.
    enum Break {
        /// An abortive close: the client sees a reset (TCP RST), whatever it had still to read.
        case reset
        /// Nothing more is written, and the connection stays open until the client closes it
        /// or the idle timeout passes.
        case stall
    }

    let context: ServerContext
    let loop: EventLoop
    private let socket: Socket
    private let onClose: @Sendable (ServerConnection) -> Void
    private var parser: HTTPRequestParser
    /// The answers not yet written whole, in request order; only the first writes to the socket.
    private var slots: [Slot] = []
    /// The slot of a request whose head has come and whose body has not.
    private var openSlot: Slot?
    /// Bytes for the socket, in order; `written` of the first are sent.
    private var output: [Data] = []
    private var written = 0
    private var unsent = 0
    /// No more requests are read: the last answer closes the connection.
    private var closesAfterAnswers = false
    /// The connection closes because a whole request asked it to (not after an error, where the
    /// client may still be sending the rest of what was refused).
    private var endedInGoodOrder = false
    /// The client ended its sending side: nothing more comes from the socket, but the requests
    /// already in the parser are still answered.
    private(set) var inputEnded = false
    /// The answers are out and the write side shut: what the client still sends is read and
    /// dropped until it closes, so its unread bytes do not make the kernel reset the connection
    /// under the answer.
    private var isLingering = false
    private(set) var isClosed = false
    private var isWatched = false
    /// Whether the socket would not take more: written when the loop says it is writable again.
    private var waitsToWrite = false
    /// The slot of a request being decided on another thread: the next request is not started
    /// before it is, so the stubs see the connection's requests in the order they came.
    private var decidingElsewhere: Slot?
    /// How the connection ends once the last answer is out, when it breaks.
    private var breaksAfterAnswers: Break?

    // The clock: uptime nanoseconds of the events the timeouts count from.
    private var headStartedAt: UInt64?
    private var lastProgress: UInt64 = DispatchTime.now().uptimeNanoseconds
    private var lingerStartedAt: UInt64 = 0
    /// When the connection's timeout is due, and the loop timer that looks at it then (it may
    /// find the deadline moved later, and wait again).
    private var deadline: UInt64?
    private var timer: LoopTimer?

    /// Answers queued beyond this many stop the reading until some are written.
    static let maximumPipelined = 64
    /// Answer bytes the client has not taken beyond which no further request is read: a client
    /// that pipelines requests and reads nothing must not make the server hold every answer.
    static let maximumUnsent = 1 << 20
    /// The bytes one read takes from the socket.
    static let readSize = 64 * 1024
    /// A request with a body of this many bytes or more is decided on another thread: hashing,
    /// matching and reporting a body of megabytes takes long enough to hold up every other
    /// connection of the loop (seconds in a debug build).
    static let decidedOffTheLoopBytes = 64 * 1024
    /// A request whose head (target and header lines) is this many bytes or more is decided on
    /// another thread too: matching and reporting hundreds of header lines or a query of tens
    /// of kilobytes takes a tenth of a second in a debug build. Ordinary heads are far smaller.
    static let decidedOffTheLoopHeadBytes = 16 * 1024
    /// A request of this many header lines or more is decided on another thread too, whatever
    /// their size: each line is folded, matched and reported on its own.
    static let decidedOffTheLoopHeaderLines = 64
    /// Seconds a closing connection waits for the client to close its side.
    private static let lingerTime: TimeInterval = 2

    init(socket: Socket, loop: EventLoop, context: ServerContext, onClose: @escaping @Sendable (ServerConnection) -> Void) {
        self.socket = socket
        self.loop = loop
        self.context = context
        self.onClose = onClose
        parser = HTTPRequestParser(limits: context.configuration.limits)
    }

    /// Starts reading requests; on the loop.
    func start() {
        isWatched = true
        lastProgress = DispatchTime.now().uptimeNanoseconds
        updateInterest()
        armTimer()
    }

    /// Answers 503 (the server has as many connections as it takes) and closes; on the loop.
    func refuse(_ reason: String) {
        isWatched = true
        updateInterest()
        fail(status: 503, reason: reason)
    }

    /// Closes now: answers not yet written are dropped and their exchanges cancelled; on the loop.
    func close() {
        tearDown()
    }

    // MARK: Reading

    /// Whether the connection reads from its socket now: only what it will use.
    private var readsNow: Bool {
        if isLingering { return true }
        return !isClosed && !inputEnded && !closesAfterAnswers && slots.count < Self.maximumPipelined && !isBackedUp
            && parser.unreadByteCount <= context.configuration.limits.maximumHeadBytes
    }

    func readable() {
        guard !isClosed else { return }
        var ended = false
        withUnsafeTemporaryAllocation(byteCount: Self.readSize, alignment: 1) { buffer in
            switch socket.receive(into: buffer) {
            case .bytes(let count):
                if !isLingering {
                    parser.append(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                    lastProgress = DispatchTime.now().uptimeNanoseconds
                }
            case .wouldBlock:
                break
            case .closed:
                ended = true
            }
        }
        if ended {
            // Lingering, the client closed its side after the answers: done.
            if isLingering { return tearDown() }
            endInput()
        }
        if !isLingering { readRequests() }
        guard !isClosed else { return }
        updateInterest()
        armTimer()
    }

    /// The client sent its last byte. The requests it sent whole are still answered (by
    /// `readRequests`, as room allows); an exchange waiting on the test lets go of its request,
    /// as for a client that went away, since a client that closed both sides looks the same.
    private func endInput() {
        inputEnded = true
        // Answers already decided are unaffected: only a held exchange is still waiting. The open
        // slot's exchange has not started (its body may still be in the parser, whole); one being
        // decided elsewhere is let go once decided, as an answer decided here would be.
        for slot in slots where slot !== openSlot && slot !== decidingElsewhere { slot.cancellation.cancel() }
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
        while !closesAfterAnswers, !isClosed, decidingElsewhere == nil, slots.count < Self.maximumPipelined, !isBackedUp {
            let event: HTTPRequestParser.Event?
            do {
                event = try parser.next()
            } catch {
                return fail(status: error.status, reason: error.reason)
            }
            guard let event else {
                noteHeadProgress()
                return noWholeRequestWaits()
            }
            switch event {
            case .head(let head):
                headStartedAt = nil
                let slot = Slot()
                slots.append(slot)
                if stopsReadingTheBody(of: head) {
                    // Answered from its head: the rest of the connection is not read.
                    closesAfterAnswers = true
                    answer(ParsedRequest(head: head, body: nil), in: slot)
                    return
                }
                openSlot = slot
                if head.expectsContinue { emit(HTTPResponseWriter.continueResponse, in: slot) }
            case .request(let request):
                headStartedAt = nil
                let slot = openSlot ?? Slot()
                if openSlot == nil { slots.append(slot) }
                openSlot = nil
                if !request.head.keepsAlive {
                    closesAfterAnswers = true
                    endedInGoodOrder = true
                }
                answer(request, in: slot)
            }
        }
    }

    /// Runs `decide`, the exchange of `slot`, on a global queue; the connection reads its next
    /// request once it has run (its answer may still be held). Input that ends meanwhile lets go
    /// of the exchange only then, as for an exchange decided on the loop: a held answer lets go,
    /// a decided one goes out.
    func decideOffTheLoop(_ slot: Slot, _ decide: @escaping @Sendable () -> Void) {
        decidingElsewhere = slot
        DispatchQueue.global().async { [self] in
            decide()
            loop.execute { [self] in
                decidingElsewhere = nil
                if inputEnded { slot.cancellation.cancel() }
                guard !isClosed else { return }
                readRequests()
                guard !isClosed else { return }
                updateInterest()
                armTimer()
            }
        }
    }

    /// Whether `head` announces a body that the stub answering it will not read
    /// (``StubFault/disconnectDuringRequestBody``).
    private func stopsReadingTheBody(of head: HTTPRequestHead) -> Bool {
        let announcesBody =
            !head.values(of: "Transfer-Encoding").isEmpty
            || head.values(of: "Content-Length").contains { Int($0.trimmingCharacters(in: .whitespaces)) != 0 }
        guard announcesBody, let request = try? ParsedRequest(head: head, body: nil).urlRequest(base: context.baseURL) else {
            return false
        }
        return context.registry.disconnectsDuringBody(request)
    }

    /// Starts the head's clock when the first bytes of a head are in.
    private func noteHeadProgress() {
        if parser.isReadingHead {
            if headStartedAt == nil { headStartedAt = DispatchTime.now().uptimeNanoseconds }
        } else {
            headStartedAt = nil
        }
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
        endedInGoodOrder = false
        emit(HTTPResponseWriter.errorResponse(status: status, reason: reason), in: slot, finished: true, closesConnection: true)
    }

    // MARK: Writing

    /// Adds bytes to `slot`'s answer; `finished` ends it. Written at once when every answer
    /// before it is out. Returns `false` when the connection is gone: nothing more is wanted.
    @discardableResult
    func emit(_ bytes: [UInt8], in slot: Slot, finished: Bool = false, closesConnection: Bool = false) -> Bool {
        emit(pieces: bytes.isEmpty ? [] : [Data(bytes)], in: slot, finished: finished, closesConnection: closesConnection)
    }

    /// Adds pieces to `slot`'s answer, each written from where it is (a body is not copied).
    @discardableResult
    func emit(
        pieces: [Data], in slot: Slot, finished: Bool = false, closesConnection: Bool = false, breaks: Break? = nil
    ) -> Bool {
        guard !isClosed, slots.contains(where: { $0 === slot }) else { return false }
        slot.pending += pieces.lazy.filter { !$0.isEmpty }
        if finished {
            slot.finished = true
            slot.closesConnection = closesConnection || breaks != nil
            slot.breaks = breaks
        }
        writeReadyAnswers()
        return !isClosed
    }

    /// Moves the first answers' bytes to the socket, each finished one making way for the next.
    private func writeReadyAnswers() {
        while let first = slots.first {
            for piece in first.pending {
                output.append(piece)
                unsent += piece.count
            }
            first.pending = []
            guard first.finished else { break }
            slots.removeFirst()
            // Its player holds the slot in its sink: let go of both.
            first.player = nil
            if first.closesConnection {
                closesAfterAnswers = true
                breaksAfterAnswers = first.breaks
                for slot in slots { slot.cancellation.cancel() }
                slots = []
            }
        }
        flush()
        guard !isClosed else { return }
        readRequests()
        updateInterest()
        armTimer()
    }

    /// More than ``maximumUnsent`` bytes of answers wait for the client to take them.
    var isBackedUp: Bool { unsent > Self.maximumUnsent }

    func writable() {
        guard !isClosed else { return }
        waitsToWrite = false
        let before = unsent
        flush()
        guard !isClosed else { return }
        // The client took some: its time to take the rest starts again.
        if unsent < before { lastProgress = DispatchTime.now().uptimeNanoseconds }
        if !isBackedUp {
            slots.first?.player?.roomAvailable()
            readRequests()
        }
        updateInterest()
        armTimer()
    }

    /// Writes what the socket takes; waits for it to drain when it takes no more.
    private func flush() {
        while let first = output.first {
            let transfer = first.withUnsafeBytes { socket.send(UnsafeRawBufferPointer(rebasing: $0[written...])) }
            switch transfer {
            case .bytes(let count):
                written += count
                unsent -= count
                if written == first.count {
                    output.removeFirst()
                    written = 0
                }
            case .wouldBlock:
                waitsToWrite = true
                return
            case .closed:
                return tearDown()
            }
        }
        if closesAfterAnswers, slots.isEmpty, !isLingering {
            switch breaksAfterAnswers {
            case .reset?:
                socket.resetOnClose()
                return tearDown()
            case .stall?:
                // Silent, but still reading (and dropping) to see the client go.
                isLingering = true
                lingerStartedAt = DispatchTime.now().uptimeNanoseconds
                return
            case nil:
                break
            }
            // Nothing to wait for from a client that has said all it will, or that closed after a
            // request that ended in good order with nothing sent after it: a close loses nothing
            // (only unread input makes the kernel reset the connection under the answer).
            if inputEnded || (endedInGoodOrder && parser.unreadByteCount == 0 && !socket.hasUnreadInput) { return tearDown() }
            isLingering = true
            lingerStartedAt = DispatchTime.now().uptimeNanoseconds
            socket.shutdownWrite()
        }
    }

    /// Tells the loop what the connection waits for now.
    private func updateInterest() {
        guard !isClosed, isWatched else { return }
        loop.watch(socket.descriptor, by: self, reading: readsNow, writing: waitsToWrite)
    }

    // MARK: Timeouts and closing

    /// When the connection gives up, as its state allows: a head must arrive whole within the
    /// head timeout of its first byte, a body must not go quiet for the read timeout; the idle
    /// timeout between requests and while the client takes none of the answers that wait for
    /// it; the linger time once closing; no limit while answers are being decided and nothing
    /// more is awaited from the client (a held response waits for the test).
    private func armTimer() {
        guard !isClosed else { return }
        let configuration = context.configuration
        func after(_ seconds: TimeInterval, from start: UInt64) -> UInt64 {
            start &+ UInt64(min(max(seconds, 0), 1e9) * 1e9)
        }
        let due: UInt64?
        if isLingering {
            due = after(breaksAfterAnswers == .stall ? configuration.idleTimeout : Self.lingerTime, from: lingerStartedAt)
        } else if isBackedUp {
            due = after(configuration.idleTimeout, from: lastProgress)
        } else if closesAfterAnswers || inputEnded {
            due = nil
        } else if let headStartedAt, readsNow {
            // Paused (answers to write first), the server is not reading: no fault of the client.
            due = min(after(configuration.headTimeout, from: headStartedAt), after(configuration.readTimeout, from: lastProgress))
        } else if parser.isInsideRequest, readsNow {
            due = after(configuration.readTimeout, from: lastProgress)
        } else if !slots.isEmpty {
            due = nil
        } else {
            due = after(configuration.idleTimeout, from: lastProgress)
        }
        deadline = due
        guard let due else { return }
        // A timer already due no later looks again when it fires: moving a deadline later costs nothing.
        if let timer, timer.deadline <= due { return }
        timer?.cancel()
        timer = loop.schedule(at: due) { [self] in timerFired() }
    }

    private func timerFired() {
        timer = nil
        guard !isClosed, let deadline else { return }
        if DispatchTime.now().uptimeNanoseconds < deadline {
            timer = loop.schedule(at: deadline) { [self] in timerFired() }
            return
        }
        timedOut()
    }

    private func timedOut() {
        // A client that takes none of its answers for the idle timeout is given up.
        if isLingering || isBackedUp || (!parser.isInsideRequest && slots.isEmpty) { return tearDown() }
        guard parser.isInsideRequest, !closesAfterAnswers else { return }
        let configuration = context.configuration
        if let headStartedAt,
            DispatchTime.now().uptimeNanoseconds &- headStartedAt >= UInt64(min(max(configuration.headTimeout, 0), 1e9) * 1e9)
        {
            return fail(status: 408, reason: "the request head did not arrive whole within \(configuration.headTimeout) s")
        }
        fail(status: 408, reason: "the request did not arrive whole within \(configuration.readTimeout) s of quiet")
    }

    /// Closes the connection now and cancels every exchange still in it; once.
    private func tearDown() {
        guard !isClosed else { return }
        isClosed = true
        for slot in slots {
            slot.cancellation.cancel()
            slot.player?.stop()
            slot.player = nil
        }
        openSlot?.cancellation.cancel()
        slots = []
        openSlot = nil
        output = []
        unsent = 0
        timer?.cancel()
        timer = nil
        if isWatched { loop.forget(socket.descriptor) }
        socket.close()
        onClose(self)
    }
}
