import Dispatch
import Foundation
import HTTPClient

/// Serves a ``StubRegistry`` over HTTP/1.1 on a loopback socket, for clients that cannot take a
/// `URLSession` or a `MockURLSession`: AsyncHTTPClient, an app under a UI test, curl, a script.
///
/// It is one more transport over the registry's one exchange: matching, sequences, latency,
/// throttled and streamed bodies (sent chunked, over time), held responses, verification and
/// the request log behave as on the other transports. As a server it follows no redirect (a 3xx
/// stub is a 3xx answer), keeps no cookies (each `Set-Cookie` goes out as its own header line)
/// and caches nothing. An unmatched request is answered with
/// ``Configuration/unmatchedStatus`` (404) and the report in the body, and fails the
/// test that owns the registry, as on the other transports.
///
/// ```swift
/// let stubs = StubRegistry()
/// stubs.stub(.get, "/users/1").respond(.json(raw: #"{"id":1}"#))
/// let server = try StubServer(stubs)
/// defer { server.stop() }
/// // Hand server.baseURL (http://127.0.0.1:PORT) to the code under test.
/// ```
public final class StubServer: Sendable {
    /// The server's root: `http://127.0.0.1:PORT`, `http://[::1]:PORT`, or the address bound
    /// (`http://0.0.0.0:PORT`, which a client on another machine cannot use: its answers name the
    /// host a request's `Host` line names instead, in `Location` and in the recorded request's URL).
    public let baseURL: URL
    /// The port the server listens on (the one the system picked when asked for 0).
    public let port: Int

    private let listener: Listener
    private let upstream: ServerUpstream?

    /// Binds the address and starts listening before it returns.
    ///
    /// The first server of a process raises the process's soft limit on open descriptors toward
    /// its hard limit, up to 10,240 (a limit already higher is kept): the 256 or 1,024 a process
    /// starts with on most systems is less than a test run holds when many tests serve and
    /// connect at once.
    ///
    /// - Parameters:
    ///   - stubs: The registry that answers every request. With an upstream that records, the
    ///     recording's exchanges are served through it too, as a replayed cassette's are.
    ///   - configuration: The address and port (loopback, a free port by default), the status of
    ///     unmatched requests, the log, the upstream.
    /// - Throws: ``StubServerError`` when the socket cannot be made, bound (the port is taken,
    ///   the address is not this machine's) or listened on; ``CassetteError`` when the upstream's
    ///   recording cannot be read or written.
    public init(_ stubs: StubRegistry, configuration: Configuration = Configuration()) throws {
        let host = configuration.address.host
        // The process's descriptor limit, raised once before the first server listens.
        _ = Socket.descriptorLimit
        let group = try EventLoopGroup.shared.get()
        let upstream = try configuration.upstream.map { upstream throws(CassetteError) in try ServerUpstream(upstream, registry: stubs) }
        self.upstream = upstream
        let (socket, port) = try Socket.listening(host: host, port: configuration.port, backlog: 512)
        self.port = port
        let authority = host.contains(":") ? "[\(host)]" : host
        guard let baseURL = URL(string: "http://\(authority):\(port)") else {
            socket.close()
            throw StubServerError(.bind, host: host, port: port, reason: "the address does not make a URL")
        }
        self.baseURL = baseURL
        // Registered once the address is known, before anything can be asked.
        upstream?.start(servedAt: baseURL)
        listener = Listener(
            socket: socket,
            context: ServerContext(registry: stubs, configuration: configuration, baseURL: baseURL, upstream: upstream), group: group)
    }

    deinit {
        listener.stop()
        upstream?.stop()
    }

    /// Closes the listener and every connection, and frees the port (another server can bind it
    /// as soon as this returns). Exchanges in flight are cancelled: a held response released
    /// later goes nowhere, a forwarded request's transfer stops. A recording is complete when it
    /// returns: an exchange being written is written, no later one is. Calling it again does nothing.
    public func stop() {
        listener.stop()
        upstream?.stop()
    }
}
