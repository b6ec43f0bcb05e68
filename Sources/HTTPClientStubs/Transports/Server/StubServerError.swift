#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a ``StubServer`` could not start: the step that failed, the address and port it was
/// asked for, and the system's reason (`Address already in use`).
public struct StubServerError: Error, CustomStringConvertible, Sendable {
    /// The step of starting a server that failed.
    enum Step: Sendable {
        /// Creating the socket (`socket(2)`): out of descriptors, or the address family is not supported.
        case socket
        /// Binding the address (`bind(2)`): the port is taken, the address is not this machine's, or not an address.
        case bind
        /// Listening (`listen(2)`, `getsockname(2)`).
        case listen
    }

    /// The step that failed.
    let step: Step
    /// The address the server was asked to bind, as given (`127.0.0.1`, `::1`).
    let host: String
    /// The port the server was asked to bind (0: any free one).
    let port: Int
    /// The system's reason, such as `Address already in use (errno 98)`.
    let reason: String

    init(_ step: Step, host: String, port: Int, reason: String) {
        self.step = step
        self.host = host
        self.port = port
        self.reason = reason
    }

    init(_ step: Step, host: String, port: Int, errno code: Int32) {
        self.init(step, host: host, port: port, reason: "\(String(cString: strerror(code))) (errno \(code))")
    }

    /// One line: `StubServer could not bind 127.0.0.1 port 8080: Address already in use (errno 98).`
    public var description: String {
        let address = host.contains(":") ? "[\(host)]" : host
        let action =
            switch step {
            case .socket: "create a socket for"
            case .bind: "bind"
            case .listen: "listen on"
            }
        return "StubServer could not \(action) \(address) port \(port): \(reason)."
    }
}
