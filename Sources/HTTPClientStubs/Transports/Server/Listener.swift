import Dispatch
import Foundation
import HTTPClient

/// What every connection of one server shares.
struct ServerContext: Sendable {
    let registry: StubRegistry
    let configuration: StubServer.Configuration
    let baseURL: URL
    /// Where the log's entries go, off the loops.
    let log: LogRelay?
    /// Where what no stub answers goes, when the server has an upstream.
    let upstream: ServerUpstream?

    init(registry: StubRegistry, configuration: StubServer.Configuration, baseURL: URL, upstream: ServerUpstream?) {
        self.registry = registry
        self.configuration = configuration
        self.baseURL = baseURL
        self.upstream = upstream
        log = configuration.log.map(LogRelay.init)
    }
}

/// A ``StubServer``'s listening socket and its open connections: accepts while it runs, hands
/// each connection to the next loop of the shared ``EventLoopGroup``, and on `stop()` closes
/// them all and frees the port.
///
/// Past ``StubServer/Configuration/maximumConnections`` a connection is accepted, answered 503
/// and closed: after reading what the client sent, so that it gets the answer rather than a
/// reset, for at most ``maximumLingeringRefusals`` connections at a time, and at once past
/// that, so that a flood of connections cannot take the descriptors the admitted ones need
/// for their fixture files. When the process has no descriptor left (`EMFILE`), a spare one kept for the
/// purpose is closed to accept the waiting connection and answer it 503 the same way; when not
/// even that is possible, accepting pauses for a moment instead of spinning on a socket that
/// stays ready.
// @unchecked: the mutable state is `state`, behind its lock, and `spare`, touched on `loop` only.
final class Listener: ReadinessHandler, @unchecked Sendable {
    private struct State {
        var connections: [ObjectIdentifier: ServerConnection] = [:]
        /// Connections past the limit, answered 503 and closing.
        var refusing: [ObjectIdentifier: ServerConnection] = [:]
        var stopped = false
    }

    /// How many connections past the limit may wait at once for their 503 to be read: 16, or
    /// fewer when the process may open few descriptors (none at 64 or less: the admitted
    /// connections and their files need them all).
    static let maximumLingeringRefusals: Int = {
        guard let limit = Socket.descriptorLimit else { return 16 }
        return min(16, max(0, (limit - 64) / 4))
    }()

    private let socket: Socket
    private let context: ServerContext
    private let group: EventLoopGroup
    private let loop: EventLoop
    private let state = Locked(State())
    private var spare = SpareDescriptor()
    /// Whether accepting pauses after running out of descriptors.
    private var isPaused = false
    /// How long accepting pauses when no descriptor can be had even for a 503.
    private static let pause: TimeInterval = 0.1

    init(socket: Socket, context: ServerContext, group: EventLoopGroup) {
        self.socket = socket
        self.context = context
        self.group = group
        loop = group.nextLoop()
        loop.execute { [self] in loop.watch(socket.descriptor, by: self, reading: true, writing: false) }
    }

    /// Takes every waiting connection.
    func readable() {
        guard !isPaused else { return }
        // A bounded batch: the loop's other sockets get their turn between batches.
        for _ in 0..<64 {
            switch socket.accept() {
            case .connection(let accepted):
                admit(accepted)
            case .none:
                return
            case .outOfDescriptors:
                guard spare.release(), case .connection(let accepted) = socket.accept() else {
                    spare.reopen()
                    return pauseAccepting()
                }
                refuse(accepted, "the server is out of file descriptors (the process's limit is reached)")
                spare.reopen()
            }
        }
    }

    func writable() {}

    private func admit(_ accepted: Socket) {
        let connectionLoop = group.nextLoop()
        let connection = ServerConnection(socket: accepted, loop: connectionLoop, context: context) { [weak self] connection in
            self?.state.withLock { state in
                state.connections.removeValue(forKey: ObjectIdentifier(connection))
                state.refusing.removeValue(forKey: ObjectIdentifier(connection))
            }
        }
        enum Admission { case admitted, refused, refusedAtOnce, stopped }
        let admission = state.withLock { state -> Admission in
            guard !state.stopped else { return .stopped }
            if state.connections.count < context.configuration.maximumConnections {
                state.connections[ObjectIdentifier(connection)] = connection
                return .admitted
            }
            guard state.refusing.count < Self.maximumLingeringRefusals else { return .refusedAtOnce }
            state.refusing[ObjectIdentifier(connection)] = connection
            return .refused
        }
        let limit = context.configuration.maximumConnections
        switch admission {
        case .admitted: connectionLoop.execute { connection.start() }
        case .refused: connectionLoop.execute { connection.refuse("the server has \(limit) connections open, its most") }
        case .refusedAtOnce: refuse(accepted, "the server has \(limit) connections open, its most")
        case .stopped: accepted.close()
        }
    }

    /// Answers 503 at once and closes, on the listener's loop: no connection is kept for it.
    private func refuse(_ accepted: Socket, _ reason: String) {
        let answer = HTTPResponseWriter.errorResponse(status: 503, reason: reason)
        _ = answer.withUnsafeBytes { accepted.send($0) }
        accepted.close()
    }

    /// Stops watching the socket for a moment: it stays ready while connections wait, and no
    /// descriptor is free to take them.
    private func pauseAccepting() {
        isPaused = true
        loop.watch(socket.descriptor, by: self, reading: false, writing: false)
        loop.schedule(after: Self.pause) { [self] in
            isPaused = false
            spare.reopen()
            guard !state.withLock({ $0.stopped }) else { return }
            loop.watch(socket.descriptor, by: self, reading: true, writing: false)
        }
    }

    /// Stops accepting, closes every connection and waits until the port is free; once.
    func stop() {
        let connections = state.withLock { state -> [ServerConnection]? in
            guard !state.stopped else { return nil }
            state.stopped = true
            defer {
                state.connections = [:]
                state.refusing = [:]
            }
            return Array(state.connections.values) + Array(state.refusing.values)
        }
        guard let connections else { return }
        for connection in connections { connection.loop.execute { connection.close() } }
        let closeListener = { @Sendable [self] in
            loop.forget(socket.descriptor)
            socket.close()
            _ = spare.release()
        }
        // The port is free when stop() returns.
        if loop.inLoop {
            closeListener()
        } else {
            let closed = DispatchSemaphore(value: 0)
            loop.execute {
                closeListener()
                closed.signal()
            }
            closed.wait()
        }
    }
}
