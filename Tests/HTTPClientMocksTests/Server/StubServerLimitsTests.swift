import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@_spi(Engine) @testable import HTTPClientStubs

#if os(Linux)
/// Whatever a client does, the server holds a bounded amount of memory, descriptors and time.
/// Memory and descriptors are measured on `httpc serve` in a process of its own (`/proc`), with
/// a lowered descriptor limit where the test needs one.
@Suite("StubServer bounds what a client can make it hold", .serialized)
struct StubServerLimitsTests {
    /// An `httpc serve` child: its process, and the port it listens on.
    final class Served {
        let process: LaunchedProcess
        let port: Int
        let folder: URL

        /// Starts `httpc serve` on a fixture folder holding `status` and an 8 MB `big` answer,
        /// with `arguments` and, when given, a descriptor limit (`ulimit -n`).
        init(_ arguments: [String] = [], descriptorLimit: Int? = nil) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("limits-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall systems go\n".utf8)
                .write(to: folder.appendingPathComponent("GET|-status.http"))
            try (Data("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n".utf8) + Data(repeating: UInt8(ascii: "b"), count: 8 << 20))
                .write(to: folder.appendingPathComponent("GET|-big.http"))
            let httpc = try HttpcTests.binary.path
            let command = (["serve", "--port", "0", "--fixtures", folder.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
            process = try LaunchedProcess(
                URL(fileURLWithPath: "/bin/sh"),
                ["-c", (descriptorLimit.map { "ulimit -n \($0) && " } ?? "") + "exec '\(httpc)' \(command)"],
                errors: .discarded)
            port = try HttpcServeTests.Server(process).port
            // Its log is read and dropped, so it never waits on a full pipe.
            process.discardTheRestOfItsOutput()
        }

        deinit {
            process.signal(SIGINT)
            process.wait()
            try? FileManager.default.removeItem(at: folder)
        }

        /// Its resident memory now, in bytes.
        var residentBytes: Int { Self.status("VmRSS:", of: process.identifier) * 1024 }

        /// The CPU time it has used, in seconds.
        var cpuSeconds: Double {
            guard let stat = try? String(contentsOfFile: "/proc/\(process.identifier)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return .nan }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
            return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }

        private static func status(_ field: String, of pid: Int32) -> Int {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let line = text.split(separator: "\n").first { $0.hasPrefix(field) }
            return line.flatMap { Int($0.split(separator: " ")[1]) } ?? -1
        }
    }

    /// A client that writes as fast as the server takes its bytes and stops when it takes none.
    final class Flood {
        let descriptor: Int32

        init(port: Int) throws {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr = in_addr(s_addr: in_addr_t(0x7F00_0001).bigEndian)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { throw RawConnection.ReadError(description: "connect: errno \(errno)") }
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }

        deinit { close(descriptor) }

        /// Sends `head`, then `byte` repeated until `limit` bytes in all are sent or the server
        /// takes nothing for `quiet` seconds; returns the bytes it took.
        func send(_ head: String, then byte: UInt8, upTo limit: Int, quiet: Int32 = 1000) -> Int {
            var sent = 0
            var piece = Array(head.utf8)
            let filler = [UInt8](repeating: byte, count: 1 << 16)
            while sent < limit {
                let count = piece.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count > 0 {
                    sent += count
                    piece = count < piece.count ? Array(piece[count...]) : filler
                    continue
                }
                guard count < 0, errno == EAGAIN || errno == EWOULDBLOCK else { break }
                var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                if poll(&ready, 1, quiet) <= 0 { break }
            }
            return sent
        }

        /// The first line the server answers, waiting up to `seconds`.
        func statusLine(within seconds: Int32 = 20) -> String? {
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !received.contains(UInt8(ascii: "\n")) {
                var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, seconds * 1000) > 0 else { return nil }
                let count = recv(descriptor, &buffer, buffer.count, 0)
                if count <= 0 { break }
                received += buffer[0..<count]
            }
            return String(decoding: received, as: UTF8.self).split(separator: "\r\n").first.map(String.init)
        }
    }

    /// A client that asked for the connection to close, and whose 8 MB answer it does not read,
    /// keeps sending: the server reads none of it. Measured before: 256 MB sent, 258 MB more
    /// resident, no timer running.
    @Test func aClientThatKeepsSendingAfterAClosingRequestIsNotRead() throws {
        let served = try Served()
        let flood = try Flood(port: served.port)
        let before = served.residentBytes

        let taken = flood.send("GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", then: 0x41, upTo: 256 << 20)

        // The kernel's socket buffers take a few MB; the server, nothing while its answer waits.
        #expect(taken < 64 << 20, "the server took \(taken >> 20) MB after a closing request")
        #expect(served.residentBytes - before < 8 << 20 + 32 << 20)
    }

    /// On a fresh connection a fast sender of a head that never ends gets its 431 once the head's
    /// limit is passed, and is not stored meanwhile. Measured before: 88-580 MB stored first.
    @Test func aHeadThatNeverEndsIsRefusedWithoutStoringWhatFollows() throws {
        let served = try Served()
        let flood = try Flood(port: served.port)
        let before = served.residentBytes

        let taken = flood.send("GET / HTTP/1.1\r\nX-Long: ", then: UInt8(ascii: "a"), upTo: 256 << 20, quiet: 200)

        // What follows the 431 is read and dropped until the client stops or the linger ends.
        let line = flood.statusLine()
        #expect(line?.hasPrefix("HTTP/1.1 431") == true, "\(String(describing: line)) after \(taken >> 20) MB")
        #expect(served.residentBytes - before < 32 << 20, "grew by \((served.residentBytes - before) >> 20) MB")
    }

    /// 20 clients that do not read an 8 MB answer: each answer is held once. Measured before:
    /// about three times (552 MB).
    @Test func answersNobodyReadsAreHeldOnce() async throws {
        let served = try Served()
        let before = served.residentBytes
        let readers = try (0..<20).map { _ in try RawConnection(port: served.port) }
        for reader in readers { reader.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n") }
        // Sampled until the memory stops growing for a second: every answer decided and written
        // as far as the sockets take it.
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        var peak = 0
        var lastGrowth = clock.now
        while clock.now < deadline, clock.now - lastGrowth < .seconds(1) {
            let grown = served.residentBytes - before
            if grown > peak + (1 << 20) { lastGrowth = clock.now }
            peak = max(peak, grown)
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(peak < 20 * (8 << 20) * 3 / 2, "grew by \(peak >> 20) MB for 160 MB of answers")
        withExtendedLifetime(readers) {}
    }

    /// A flood of connections past the limit, each kept open by its client after its 503, leaves
    /// the admitted connections the descriptors they need: with `ulimit -n 64` (8 connections by
    /// default), the admitted ones still open their fixture files. Measured before: with a
    /// hundred refused connections kept open, every fixture was answered 500 (too many open files).
    @Test func aFloodPastTheConnectionLimitLeavesTheAdmittedConnectionsTheirFiles() throws {
        let served = try Served(descriptorLimit: 64)
        let request = "GET /status HTTP/1.1\r\nHost: x\r\n\r\n"
        let admitted = try (0..<8).map { _ in try RawConnection(port: served.port, readTimeout: 60) }
        for connection in admitted {
            connection.send(request)
            #expect(try connection.readResponse().status == 200)
        }
        var flood: [Flood] = []
        for _ in 0..<100 {
            guard let connection = try? Flood(port: served.port) else { break }
            _ = connection.send(request, then: 0, upTo: request.utf8.count)
            flood.append(connection)
        }
        // Each has been answered (503) or closed by the time its status line is read or missed.
        for connection in flood { _ = connection.statusLine(within: 60) }

        var statuses: [Int] = []
        for connection in admitted {
            connection.send(request)
            statuses.append(try connection.readResponse().status)
        }
        #expect(statuses == Array(repeating: 200, count: 8))
        withExtendedLifetime(flood) {}
    }

    /// With no descriptor left (a lowered `ulimit -n` and a connection limit above it), a
    /// connection past what the process can open is answered 503 and closed, and the server does
    /// not spin while such connections wait. Measured before: 96-99% of a core while idle, and
    /// the excess connections waited with no answer.
    @Test func outOfDescriptorsTheServerAnswers503AndDoesNotSpin() throws {
        let served = try Served(["--max-connections", "500"], descriptorLimit: 32)
        var answers: [String?] = []
        var connections: [Flood] = []
        for _ in 0..<40 {
            guard let connection = try? Flood(port: served.port) else { break }
            connections.append(connection)
            let request = "GET /status HTTP/1.1\r\nHost: x\r\n\r\n"
            _ = connection.send(request, then: 0, upTo: request.utf8.count)
            answers.append(connection.statusLine(within: 60))
        }
        let statuses = answers.map { $0.map { String($0.prefix(12)) } ?? "no answer" }
        #expect(statuses.contains("HTTP/1.1 200"))
        #expect(statuses.contains("HTTP/1.1 503"))
        #expect(!statuses.contains("no answer"), "\(statuses)")

        let cpu = served.cpuSeconds
        Thread.sleep(forTimeInterval: 1)
        #expect(served.cpuSeconds - cpu < 0.5, "the server used \(served.cpuSeconds - cpu) s of CPU in 1 s, idle")
        withExtendedLifetime(connections) {}
    }
}
#endif

/// A head must arrive whole within its own timeout, however often its sender sends a byte.
@Suite("StubServer's head timeout")
struct StubServerHeadTimeoutTests {
    @Test func aHeadDrippedByteByByteIsAnswered408AtItsDeadline() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/a").respond(.text("A")).allowingUnused()
        let server = try StubServer.serving(stubs) { configuration in
            configuration.headTimeout = 0.5
            configuration.readTimeout = 30
        }
        defer { server.stop() }
        let connection = try RawConnection(port: server.port, readTimeout: 30)
        let status = try await offThePool {
            // One byte at a time, each well within the read timeout, for as long as the server listens.
            // 10 s of dripping at most: far past the deadline, and a failing server answers nothing.
            for byte in "GET /a HTTP/1.1\r\nX-Drip: ".utf8 + Array(repeating: UInt8(ascii: "x"), count: 200) {
                connection.send(Data([byte]))
                if connection.hasAnswerWaiting { break }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return try connection.readResponse().status
        }
        #expect(status == 408)
    }
}
