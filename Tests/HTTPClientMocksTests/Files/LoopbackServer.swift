import Foundation
import HTTPClient

/// An HTTP/1.1 server on `127.0.0.1` for the tests that run httpc over a real `URLSession`: it
/// reads one request per connection, writes the bytes `respond` returns (a body cut short
/// included) and closes the connection. The requests it read are kept, to check what was sent.
final class LoopbackServer: Sendable {
    /// One request as it arrived.
    struct Request: Sendable {
        let head: String
        let body: Data
    }

    let url: URL
    private let port: UInt16
    private let listener: Int32
    private let received = Locked<[Request]>([])
    private let stopping = Locked(false)
    private let stopped = DispatchSemaphore(value: 0)

    /// Starts listening on a free port; `respond` answers each request with the raw bytes of a
    /// response (it may also act, as deleting a folder while the answer is on its way), and
    /// `afterWriting` runs before the connection is closed (to hold a response mid-body).
    init(respond: @escaping @Sendable (Request) -> Data, afterWriting: @escaping @Sendable () -> Void = {}) throws {
        // A client that closes first must not kill the test process.
        signal(SIGPIPE, SIG_IGN)
        let listener = socket(AF_INET, Self.socketType(SOCK_STREAM), 0)
        guard listener >= 0 else { throw POSIXError(.EMFILE) }
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        guard bound == 0, named == 0, listen(listener, 16) == 0 else {
            close(listener)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL)
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        url = testURL("http://127.0.0.1:\(port)")
        let thread = Thread { [self] in serve(respond, afterWriting: afterWriting) }
        thread.start()
    }

    /// The requests read so far.
    var requests: [Request] { received.withLock { $0 } }

    /// Stops accepting connections and waits until the server's thread has ended.
    func stop() {
        stopping.withLock { $0 = true }
        // accept() does not return when its socket is closed on Linux: a connection wakes it.
        let waker = socket(AF_INET, Self.socketType(SOCK_STREAM), 0)
        var address = Self.loopback(port: port)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(waker, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        close(waker)
        stopped.wait()
        close(listener)
    }

    private func serve(_ respond: @Sendable (Request) -> Data, afterWriting: @Sendable () -> Void) {
        defer { stopped.signal() }
        while true {
            let connection = accept(listener, nil, nil)
            if stopping.withLock({ $0 }) {
                if connection >= 0 { close(connection) }
                return
            }
            guard connection >= 0 else { continue }
            // A client that stops sending must not hang the test.
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            if let request = read(connection) {
                received.withLock { $0.append(request) }
                write(respond(request), to: connection)
                afterWriting()
            }
            close(connection)
        }
    }

    /// Reads a request's head and, by its `Content-Length`, its body; answers `Expect: 100-continue`.
    private func read(_ connection: Int32) -> Request? {
        var bytes = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        func fill() -> Bool {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return false }
            bytes.append(contentsOf: buffer[..<count])
            return true
        }
        let separator = Data("\r\n\r\n".utf8)
        var end = bytes.range(of: separator)
        while end == nil {
            guard fill() else { return nil }
            end = bytes.range(of: separator)
        }
        guard let end else { return nil }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
        let fields = head.split(separator: "\r\n").dropFirst().map { $0.split(separator: ":", maxSplits: 1) }
        func field(_ name: String) -> String? {
            fields.first { $0.count == 2 && $0[0].lowercased() == name }.map { $0[1].trimmingCharacters(in: .whitespaces) }
        }
        if field("expect")?.lowercased() == "100-continue" { write(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8), to: connection) }
        let length = field("content-length").flatMap { Int($0) } ?? 0
        while bytes.count - end.upperBound < length {
            guard fill() else { break }
        }
        return Request(head: head, body: Data(bytes[end.upperBound...]))
    }

    private func write(_ data: Data, to connection: Int32) {
        data.withUnsafeBytes { buffer in
            guard let start = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let count = send(connection, start + offset, buffer.count - offset, 0)
                guard count > 0 else { return }
                offset += count
            }
        }
    }

    /// A response's bytes: the status line, the headers (`Content-Length` of `declaredLength`,
    /// the body's length unless given) and the body, which may be shorter than declared.
    static func response(status: Int = 200, _ body: String, declaredLength: Int? = nil) -> Data {
        let data = Data(body.utf8)
        return Data(
            "HTTP/1.1 \(status) OK\r\nContent-Length: \(declaredLength ?? data.count)\r\nConnection: close\r\n\r\n".utf8) + data
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: in_addr_t(0x7F00_0001).bigEndian)
        return address
    }

    // SOCK_STREAM is an Int32 on Apple platforms and an enum on Linux: each call picks its overload.
    private static func socketType(_ type: Int32) -> Int32 { type }
    private static func socketType<Type: RawRepresentable>(_ type: Type) -> Int32 where Type.RawValue: BinaryInteger {
        Int32(type.rawValue)
    }
}
