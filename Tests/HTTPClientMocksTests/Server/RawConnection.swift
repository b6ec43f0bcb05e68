import Foundation
import HTTPClient

@testable import HTTPClientStubs

/// A client connection that sends exactly the bytes a test writes and reads what the server
/// answers, for the HTTP edge cases no `URLSession` sends (pipelining, malformed heads, a
/// client that stops halfway). Every read gives up after a few seconds, so a server that never
/// answers fails the test instead of hanging it.
///
/// Its calls block: a test that makes many (or waits long) makes them in ``offThePool(_:)``.
// @unchecked: used by one thread at a time (the test's, or the one `offThePool` lends it).
final class RawConnection: @unchecked Sendable {
    /// One response as read off the wire.
    struct Response {
        let status: Int
        /// The header lines, in order, as sent.
        let headers: [(name: String, value: String)]
        let body: Data
        /// Whether the body came chunked.
        let chunked: Bool
        /// The chunks, when it did.
        let chunks: [Data]

        var text: String { String(decoding: body, as: UTF8.self) }

        func values(_ name: String) -> [String] {
            headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
        }
    }

    struct ReadError: Error, CustomStringConvertible {
        let description: String
    }

    private let descriptor: Int32
    private var buffer: [UInt8] = []

    /// Connects to `port` on 127.0.0.1 (or ::1). `readTimeout` is a failsafe for a server that
    /// never answers, not a measure: a read that waits for it fails the test, and a debug server
    /// under ThreadSanitizer on two busy cores can take seconds over a large answer.
    init(port: Int, ipv6: Bool = false, readTimeout: Int = 60) throws {
        descriptor = ipv6 ? socket(AF_INET6, Self.stream, 0) : socket(AF_INET, Self.stream, 0)
        guard descriptor >= 0 else { throw ReadError(description: "socket: errno \(errno)") }
        var timeout = timeval(tv_sec: readTimeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        let connected: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = UInt16(port).bigEndian
            _ = inet_pton(AF_INET6, "::1", &address.sin6_addr)
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr = in_addr(s_addr: in_addr_t(0x7F00_0001).bigEndian)
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            throw ReadError(description: "connect to port \(port): errno \(code)")
        }
    }

    deinit { close(descriptor) }

    /// Whether the server has sent something not yet read (or closed), without waiting.
    var hasAnswerWaiting: Bool {
        guard buffer.isEmpty else { return true }
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&ready, 1, 0) > 0
    }

    /// A GET of `path` on a new connection to the loopback `port`, with a `Host` line naming it and
    /// any further `headers` (each line ending in CRLF), and the answer read.
    static func get(_ path: String, port: Int, headers: String = "", readTimeout: Int = 60) throws -> Response {
        let connection = try RawConnection(port: port, readTimeout: readTimeout)
        connection.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(headers)\r\n")
        return try connection.readResponse()
    }

    /// Writes `text` (or bytes) whole; a server that has closed is not an error here.
    func send(_ text: String) { send(Data(text.utf8)) }

    func send(_ data: Data) {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                #if canImport(Darwin)
                let count = Darwin.send(descriptor, raw.baseAddress! + offset, raw.count - offset, 0)
                #else
                let count = Glibc.send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                #endif
                guard count > 0 else { return }
                offset += count
            }
        }
    }

    /// Writes `data` whole, or until the server ends the connection: the `errno` of the write
    /// that failed (`ECONNRESET` or `EPIPE` for a server that reset it), `nil` when all went.
    /// A reset reported here is not reported again by a later read, which then sees the end.
    func sendUntilRefused(_ data: Data) -> Int32? {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                #if canImport(Darwin)
                let count = Darwin.send(descriptor, raw.baseAddress! + offset, raw.count - offset, 0)
                #else
                let count = Glibc.send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                #endif
                guard count > 0 else { return count < 0 ? errno : 0 }
                offset += count
            }
            return nil
        }
    }

    /// Closes the sending side only (a client that has said everything and waits for the answer).
    func finishSending() {
        shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Closes the connection (a client that goes away).
    func disconnect() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Reads one response: its head, then its body by `Content-Length` or chunked framing
    /// (none for a HEAD request or a bodiless status).
    func readResponse(toHead: Bool = false) throws -> Response {
        let headEnd = try readUntil([13, 10, 13, 10])
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw ReadError(description: "bad status line in \(head)") }
        let headers = lines.map { line -> (String, String) in
            let parts = line.split(separator: ":", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
        }
        let response = { (body: Data, chunks: [Data]?) in
            Response(status: status, headers: headers, body: body, chunked: chunks != nil, chunks: chunks ?? [])
        }
        let field = { (name: String) in headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1 }
        if toHead || status / 100 == 1 || status == 204 || status == 304 { return response(Data(), nil) }
        if field("Transfer-Encoding")?.lowercased() == "chunked" {
            var chunks: [Data] = []
            while true {
                let lineEnd = try readUntil([13, 10])
                let size = Int(String(decoding: buffer[..<lineEnd], as: UTF8.self), radix: 16) ?? -1
                buffer.removeFirst(lineEnd + 2)
                guard size > 0 else {
                    _ = try readUntil([13, 10])
                    buffer.removeFirst(2)
                    return response(chunks.reduce(Data(), +), chunks)
                }
                try fill(size + 2)
                chunks.append(Data(buffer[..<size]))
                buffer.removeFirst(size + 2)
            }
        }
        let length = field("Content-Length").flatMap { Int($0) } ?? 0
        try fill(length)
        defer { buffer.removeFirst(length) }
        return response(Data(buffer[..<length]), nil)
    }

    /// Whether the server closed the connection: reads until the end, failing on data or a timeout.
    func isClosedByServer() -> Bool {
        while true {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count == 0 { return buffer.isEmpty }
            if count < 0 { return errno == ECONNRESET }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// Reads until the server closes or resets the connection: how many bytes came, and
    /// whether it ended (`false` when a read ran out of time first).
    func readUntilClosed() -> (count: Int, ended: Bool) {
        var total = buffer.count
        buffer = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count == 0 { return (total, true) }
            if count < 0 { return (total, errno == ECONNRESET) }
            total += count
        }
    }

    /// How the server ended the connection, for ``readToEnd()``.
    enum Ending: Equatable {
        /// A close in good order (FIN).
        case closed
        /// A reset (RST).
        case reset
        /// Still open when a read ran out of time.
        case open
    }

    /// Every byte until the server ends the connection, and how it ended it.
    func readToEnd() -> (bytes: Data, ending: Ending) {
        var bytes = Data(buffer)
        buffer = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count == 0 { return (bytes, .closed) }
            if count < 0 { return (bytes, errno == ECONNRESET ? .reset : .open) }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    /// Whether bytes are waiting to be read within `milliseconds` (a check that nothing came, not a wait for work).
    func hasBytes(within milliseconds: Int32) -> Bool {
        guard buffer.isEmpty else { return true }
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, milliseconds) > 0
    }

    private func readUntil(_ marker: [UInt8]) throws -> Int {
        var searched = 0
        while true {
            if buffer.count >= marker.count {
                for start in searched...(buffer.count - marker.count) where buffer[start..<(start + marker.count)].elementsEqual(marker) {
                    return start
                }
                searched = buffer.count - marker.count + 1
            }
            try receive()
        }
    }

    private func fill(_ count: Int) throws {
        while buffer.count < count { try receive() }
    }

    private func receive() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(descriptor, &chunk, chunk.count, 0)
        guard count > 0 else {
            throw ReadError(description: count == 0 ? "the server closed the connection" : "no answer (errno \(errno))")
        }
        buffer.append(contentsOf: chunk[..<count])
    }

    // SOCK_STREAM is an Int32 on Apple platforms and an enum on Linux.
    private static var stream: Int32 { socketType(SOCK_STREAM) }
    private static func socketType(_ type: Int32) -> Int32 { type }
    private static func socketType<Type: RawRepresentable>(_ type: Type) -> Int32 where Type.RawValue: BinaryInteger {
        Int32(type.rawValue)
    }
}

/// Runs `work`, which blocks on sockets or processes, on a thread of its own: the few threads
/// the test tasks share (two on a two-core machine) stay free, so a long blocking test does not
/// starve the tasks of the tests around it (seen under ThreadSanitizer, where blocking tests
/// held both threads for a minute and the tests beside them timed out).
func offThePool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.stackSize = 4 << 20
        thread.start()
    }
}

extension StubServer {
    /// A server for `stubs`, on loopback and an ephemeral port, with the configuration's
    /// defaults changed by `adjust`: how the server suites start theirs.
    static func serving(
        _ stubs: StubRegistry, _ adjust: (inout StubServer.Configuration) -> Void = { _ in }
    ) throws -> StubServer {
        var configuration = StubServer.Configuration()
        adjust(&configuration)
        return try StubServer(stubs, configuration: configuration)
    }

    /// Whether `GET /a` on a new connection is still answered with "A", the stub the hostile
    /// input suites register: the server kept serving after what a test threw at it.
    func stillServes() throws -> Bool {
        let connection = try RawConnection(port: port)
        connection.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        return try connection.readResponse().text == "A"
    }
}

/// A server's log lines as they come (the log is called off the server's loops, after the
/// answer may already be out): `lines(count)` waits until that many have come.
final class CollectedLog: Sendable {
    private let collected = Locked<[String]>([])
    private let logged = Milestones()

    /// What a server's configuration logs to.
    var log: @Sendable (StubServer.LogEntry) -> Void {
        { [self] entry in
            collected.withLock { $0.append("\(entry)") }
            logged.advance()
        }
    }

    /// The lines, once at least `count` have come.
    func lines(_ count: Int = 1) async throws -> [String] {
        try await logged.wait(until: count, timeout: eventWait, waitingFor: "\(count) log lines")
        return collected.current
    }
}
