import Dispatch
import Foundation
import HTTPClient

/// What every connection of one server shares.
struct ServerContext: Sendable {
    let registry: StubRegistry
    let configuration: StubServer.Configuration
    let baseURL: URL
    /// How a server answers: no redirect followed, no cookie kept, no cache, no client timeout.
    let behaviour: SessionBehaviour = .server
}

/// A ``StubServer``'s listening socket and its open connections: accepts while it runs, and on
/// `stop()` closes them all and frees the port.
final class Listener: Sendable {
    private struct State {
        var connections: [ObjectIdentifier: ServerConnection] = [:]
        var stopped = false
    }

    private let socket: Socket
    private let context: ServerContext
    private let queue = DispatchQueue(label: "StubServer.listener")
    // Dispatch sources are not marked Sendable; this one is set up in init and then only
    // cancelled, which Dispatch allows from any thread.
    nonisolated(unsafe) private let source: any DispatchSourceRead
    private let state = Locked(State())
    /// Signalled once the listening descriptor is closed.
    private let closed = DispatchSemaphore(value: 0)

    init(socket: Socket, context: ServerContext) {
        self.socket = socket
        self.context = context
        source = DispatchSource.makeReadSource(fileDescriptor: socket.descriptor, queue: queue)
        source.setEventHandler { [weak self] in self?.acceptWaiting() }
        source.setCancelHandler { [socket, closed] in
            socket.close()
            closed.signal()
        }
        source.resume()
    }

    /// Takes every waiting connection.
    private func acceptWaiting() {
        while let accepted = socket.accept() {
            let connection = ServerConnection(socket: accepted, context: context) { [weak self] connection in
                self?.state.withLock { _ = $0.connections.removeValue(forKey: ObjectIdentifier(connection)) }
            }
            let admitted = state.withLock { state -> Bool? in
                guard !state.stopped else { return nil }
                guard state.connections.count < context.configuration.maximumConnections else { return false }
                state.connections[ObjectIdentifier(connection)] = connection
                return true
            }
            switch admitted {
            case true?: connection.start()
            case false?: connection.refuse()
            case nil: connection.close()
            }
        }
    }

    /// Stops accepting, closes every connection and waits until the port is free; once.
    func stop() {
        let connections = state.withLock { state -> [ServerConnection]? in
            guard !state.stopped else { return nil }
            state.stopped = true
            defer { state.connections = [:] }
            return Array(state.connections.values)
        }
        guard let connections else { return }
        source.cancel()
        for connection in connections { connection.close() }
        // The descriptor is closed by the source's cancel handler, on the listener's queue:
        // waited for, so the port is free when stop() returns.
        closed.wait()
    }
}
