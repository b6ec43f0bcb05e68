// Every socket-level difference between Apple platforms (Darwin) and Linux (Glibc, Musl) that
// StubServer meets lives in this file: the type of SOCK_STREAM, how a write to a closed peer is
// kept from raising SIGPIPE (MSG_NOSIGNAL on Linux, SO_NOSIGPIPE on Apple platforms), the
// length field of the socket addresses. The rest of the server uses `Socket` only. Sources/HTTPClient/Support/Platform.swift and CONTRIBUTING.md's platform table lists it.

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A non-blocking, close-on-exec TCP socket: the listener or one connection of a ``StubServer``.
///
/// A value names a descriptor; whoever created it closes it once (`close()`).
struct Socket: Sendable {
    let descriptor: Int32

    /// What a `receive` or `send` did.
    enum Transfer: Equatable {
        /// This many bytes moved (more than zero).
        case bytes(Int)
        /// Nothing now: wait for the descriptor to be ready.
        case wouldBlock
        /// The peer closed (receive) or is gone (send).
        case closed
    }

    // MARK: Listening

    /// A socket bound to `host` (a numeric IPv4 or IPv6 address) and `port` (0: one the system
    /// picks), listening; with the port it is bound to.
    static func listening(host: String, port: Int, backlog: Int32) throws(StubServerError) -> (socket: Socket, port: Int) {
        guard (0...65535).contains(port) else {
            throw StubServerError(.bind, host: host, port: port, reason: "the port is not between 0 and 65535")
        }
        var storage = sockaddr_storage()
        let length: socklen_t
        let family: Int32
        if let ipv4 = ipv4Address(host, port: port) {
            withUnsafeMutableBytes(of: &storage) { raw in raw.storeBytes(of: ipv4, as: sockaddr_in.self) }
            (length, family) = (socklen_t(MemoryLayout<sockaddr_in>.size), AF_INET)
        } else if let ipv6 = ipv6Address(host, port: port) {
            withUnsafeMutableBytes(of: &storage) { raw in raw.storeBytes(of: ipv6, as: sockaddr_in6.self) }
            (length, family) = (socklen_t(MemoryLayout<sockaddr_in6>.size), AF_INET6)
        } else {
            throw StubServerError(.bind, host: host, port: port, reason: "not a numeric IPv4 or IPv6 address")
        }
        let descriptor = makeSocket(family: family)
        guard descriptor >= 0 else { throw StubServerError(.socket, host: host, port: port, errno: errno) }
        let socket = Socket(descriptor: descriptor)
        // A port a stopped server held (its connections in TIME_WAIT) can be bound again at once.
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if family == AF_INET6 {
            // Only IPv6: "::1" must not also claim 127.0.0.1's port.
            setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            let code = errno
            socket.close()
            throw StubServerError(.bind, host: host, port: port, errno: code)
        }
        guard listen(descriptor, backlog) == 0 else {
            let code = errno
            socket.close()
            throw StubServerError(.listen, host: host, port: port, errno: code)
        }
        var named = sockaddr_storage()
        var namedLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let found = withUnsafeMutablePointer(to: &named) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &namedLength) }
        }
        guard found == 0 else {
            let code = errno
            socket.close()
            throw StubServerError(.listen, host: host, port: port, errno: code)
        }
        let boundPort = withUnsafeBytes(of: &named) { raw in
            family == AF_INET
                ? UInt16(bigEndian: raw.loadUnaligned(as: sockaddr_in.self).sin_port)
                : UInt16(bigEndian: raw.loadUnaligned(as: sockaddr_in6.self).sin6_port)
        }
        return (socket, Int(boundPort))
    }

    /// What `accept` found.
    enum Accepted {
        /// A connection, non-blocking and close-on-exec.
        case connection(Socket)
        /// None waits now (or it went away before it was taken).
        case none
        /// One waits, but the process (`EMFILE`) or the system (`ENFILE`) has no descriptor for it.
        case outOfDescriptors
    }

    /// The next waiting connection.
    func accept() -> Accepted {
        let accepted = systemAccept(descriptor)
        guard accepted >= 0 else {
            let code = errno
            return code == EMFILE || code == ENFILE ? .outOfDescriptors : .none
        }
        Self.configure(accepted)
        var on: Int32 = 1
        // Small answers go out at once, not after the peer's delayed ACK.
        setsockopt(accepted, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return .connection(Socket(descriptor: accepted))
    }

    // MARK: Transferring

    /// Reads what has arrived into `buffer`.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> Transfer {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .closed }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .closed
        }
    }

    /// Writes as much of `bytes` as the socket takes now; a peer that is gone is `.closed`,
    /// never a signal.
    func send(_ bytes: UnsafeRawBufferPointer) -> Transfer {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return .bytes(0) }
        while true {
            #if canImport(Darwin)
            let count = systemSend(descriptor, base, bytes.count, 0)
            #else
            let count = systemSend(descriptor, base, bytes.count, Int32(MSG_NOSIGNAL))
            #endif
            if count >= 0 { return .bytes(count) }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .closed
        }
    }

    /// Whether bytes from the peer wait to be read, without reading them.
    var hasUnreadInput: Bool {
        var byte: UInt8 = 0
        #if canImport(Darwin)
        let count = recv(descriptor, &byte, 1, MSG_PEEK | MSG_DONTWAIT)
        #else
        let count = recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        #endif
        return count > 0
    }

    /// Ends the sending side (the peer reads the end of the stream) and keeps the receiving one.
    func shutdownWrite() {
        #if canImport(Darwin)
        systemShutdown(descriptor, SHUT_WR)
        #else
        systemShutdown(descriptor, Int32(SHUT_WR))
        #endif
    }

    /// Makes the next `close()` abortive: the peer sees a reset (TCP RST), not the end of the stream.
    func resetOnClose() {
        var abortive = linger(l_onoff: 1, l_linger: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &abortive, socklen_t(MemoryLayout<linger>.size))
    }

    /// Frees the descriptor.
    func close() {
        systemClose(descriptor)
    }

    /// How many descriptors the process may have open (its soft `RLIMIT_NOFILE`), when limited;
    /// raised first, once per process, toward the hard limit, up to ``raisedDescriptorLimit``.
    /// The soft limit most systems start a process with (256 on macOS, 1,024 on most Linux
    /// distributions) is below what a test process holds when hundreds of tests each serve and
    /// connect at once, and running out makes libdispatch end the process on Linux. Go's
    /// runtime raises every program's soft limit the same way; a limit already higher is kept.
    static let descriptorLimit: Int? = {
        var limit = rlimit()
        guard getrlimit(openFilesLimit, &limit) == 0 else { return nil }
        let wanted = min(limit.rlim_max, rlim_t(raisedDescriptorLimit))
        if wanted > limit.rlim_cur {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(openFilesLimit, &raised) == 0 { limit = raised }
        }
        guard limit.rlim_cur < rlim_t(Int32.max) else { return nil }
        return Int(clamping: limit.rlim_cur)
    }()

    /// How far a server raises the soft descriptor limit: Apple's `OPEN_MAX`.
    static let raisedDescriptorLimit = 10_240

    // MARK: Platform details

    private static func makeSocket(family: Int32) -> Int32 {
        #if canImport(Darwin)
        let descriptor = socket(family, SOCK_STREAM, 0)
        #else
        // Close-on-exec from the start: a process the app spawns on another thread meanwhile
        // never inherits the socket (and never holds a connection open after the server closes it).
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #endif
        if descriptor >= 0 { configure(descriptor) }
        return descriptor
    }

    /// Non-blocking, close-on-exec, and (on Apple platforms, which have no MSG_NOSIGNAL) no
    /// SIGPIPE on a write to a closed peer.
    private static func configure(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        #if canImport(Darwin)
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    private static func ipv4Address(_ host: String, port: Int) -> sockaddr_in? {
        var address = sockaddr_in()
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    private static func ipv6Address(_ host: String, port: Int) -> sockaddr_in6? {
        var address = sockaddr_in6()
        guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { return nil }
        #if canImport(Darwin)
        address.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
        #endif
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = UInt16(port).bigEndian
        return address
    }
}

/// A descriptor kept open for the moment the process runs out of them: closed, it makes room to
/// accept one connection and answer it 503 rather than leave it waiting (then it is opened again).
struct SpareDescriptor: Sendable {
    private(set) var descriptor: Int32 = -1

    init() { reopen() }

    mutating func reopen() {
        if descriptor < 0 { descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC) }
    }

    /// Frees the descriptor; whether there was one to free.
    mutating func release() -> Bool {
        guard descriptor >= 0 else { return false }
        systemClose(descriptor)
        descriptor = -1
        return true
    }
}

// The C functions under names the methods of `Socket` do not shadow.
/// `RLIMIT_NOFILE` as getrlimit(2) and setrlimit(2) take it (an enum on glibc).
#if canImport(Darwin)
private let openFilesLimit = RLIMIT_NOFILE
#else
private let openFilesLimit = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#endif
private func systemAccept(_ descriptor: Int32) -> Int32 { accept(descriptor, nil, nil) }
private func systemSend(_ descriptor: Int32, _ base: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
    send(descriptor, base, count, flags)
}
private func systemShutdown(_ descriptor: Int32, _ how: Int32) { _ = shutdown(descriptor, how) }
private func systemClose(_ descriptor: Int32) { _ = close(descriptor) }
