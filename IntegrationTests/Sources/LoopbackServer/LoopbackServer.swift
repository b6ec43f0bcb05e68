import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP/1.1 server on `127.0.0.1` with an ephemeral port, started and stopped by the
/// tests that use it. Its routes exist to exercise a client:
///
/// | route | answer |
/// | --- | --- |
/// | `/echo` | 200, JSON of the method, path, raw query, headers and body it received |
/// | `/status/{code}` | that status, with a JSON body naming it |
/// | `/no-content`, `/empty` | 204; 200 with `Content-Length: 0` |
/// | `/bytes/{n}` | `n` bytes, byte `i` being `i % 251` |
/// | `/cut/{n}` | `Content-Length: n`, the first 10 bytes of `/bytes/{n}`, then the connection closed |
/// | `/chunked/{n}` | `n` lines sent as separate chunks (no `Content-Length`) |
/// | `/events/{n}` | `text/event-stream`: `n` events 10 ms apart (`id: i`, `data: event i`); `0` sends until the client goes (``eventStreams`` counts them) |
/// | `/stamped-events/{n}` | the same, each event's data the uptime in nanoseconds when it was written (for hand-off latency) |
/// | `/slow/{seconds}` | 200 after that delay |
/// | `/hang` | never answers |
/// | `/redirect/{code}` | that status with `Location: /echo` |
/// | `/upload` | JSON `{"count", "checksum"}` of the body (sum of its bytes) |
/// | `POST /users` | 201, the JSON body with `"id": 42` added |
public final class LoopbackServer: Sendable {
    public let port: Int
    /// `http://127.0.0.1:<port>`.
    public let baseURL: URL
    /// The event streams this server has started and ended.
    public let eventStreams: EventStreamLog
    private let channel: any Channel

    private init(channel: any Channel, port: Int, baseURL: URL, eventStreams: EventStreamLog) {
        self.channel = channel
        self.port = port
        self.baseURL = baseURL
        self.eventStreams = eventStreams
    }

    /// Starts a server on `127.0.0.1:0`.
    public static func start() async throws -> LoopbackServer {
        let eventStreams = EventStreamLog()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 1024)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(RouteHandler(eventStreams: eventStreams))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port, let baseURL = URL(string: "http://127.0.0.1:\(port)") else {
            try await channel.close()
            throw ServerError.noPort
        }
        return LoopbackServer(channel: channel, port: port, baseURL: baseURL, eventStreams: eventStreams)
    }

    /// Stops listening; connections already open are left to close on their own.
    public func stop() async throws {
        try await channel.close()
    }

    enum ServerError: Error { case noPort }
}

/// Sums bytes into a 64-bit checksum: cheap enough for 100 MB and sensitive to any lost,
/// added or changed byte at a different value.
public func byteChecksum(_ bytes: UnsafeRawBufferPointer, into sum: inout UInt64) {
    for byte in bytes { sum &+= UInt64(byte) }
}

/// Byte `i` of every `/bytes/{n}` body.
@inline(__always) public func patternByte(_ index: Int) -> UInt8 { UInt8(index % 251) }

final class RouteHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    private var received = 0
    private var checksum: UInt64 = 0
    /// Bodies above this are counted and summed, not kept.
    private let keptBodyLimit = 4 * 1024 * 1024
    private let eventStreams: EventStreamLog

    init(eventStreams: EventStreamLog) {
        self.eventStreams = eventStreams
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
            received = 0
            checksum = 0
        case .body(var chunk):
            received += chunk.readableBytes
            chunk.withUnsafeReadableBytes { byteChecksum($0, into: &checksum) }
            if received <= keptBodyLimit { body.writeBuffer(&chunk) }
        case .end:
            guard let head else { return }
            route(head, context: context)
            self.head = nil
        }
    }

    private func route(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let (path, query) = Self.split(head.uri)
        let parts = path.split(separator: "/").map(String.init)
        switch (head.method, parts.first, parts.count > 1 ? parts[1] : nil) {
        case (_, "echo", _):
            respond(context, status: 200, json: echo(head, path: path, query: query))
        case (_, "status", let code?):
            let status = Int(code) ?? 500
            respond(
                context, status: status, headers: [("X-Status", code)],
                json: ["status": status, "message": HTTPResponseStatus(statusCode: status).reasonPhrase])
        case (_, "no-content", _):
            respond(context, status: 204, body: nil)
        case (_, "empty", _):
            respond(context, status: 200, body: ByteBuffer())
        case (_, "bytes", let count?):
            sendPattern(context, count: Int(count) ?? 0)
        case (_, "cut", let count?):
            sendCutShort(context, declaring: Int(count) ?? 0)
        case (_, "chunked", let count?):
            sendChunks(context, count: Int(count) ?? 0)
        case (_, "events", let count?), (_, "stamped-events", let count?):
            let fields = HTTPHeaders([("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")])
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: fields))), promise: nil)
            eventStreams.noteStarted()
            sendEvent(context, index: 0, count: max(0, Int(count) ?? 0), stamped: parts.first == "stamped-events")
        case (_, "slow", let seconds?):
            let delay = TimeAmount.milliseconds(Int64((Double(seconds) ?? 1) * 1000))
            context.eventLoop.assumeIsolated().scheduleTask(in: delay) { [self] in
                respond(context, status: 200, json: ["slept": seconds])
            }
        case (_, "hang", _):
            break
        case (_, "login", _):
            respond(context, status: 303, headers: [("Location", "/echo"), ("Set-Cookie", "sid=42; Path=/")], body: nil)
        case (_, "redirect", let code?):
            respond(context, status: Int(code) ?? 302, headers: [("Location", "/echo")], body: nil)
        case (_, "upload", _):
            respond(context, status: 200, json: ["count": received, "checksum": String(checksum)])
        case (.POST, "users", _):
            var user = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any] ?? [:]
            user["id"] = 42
            respond(context, status: 201, json: user)
        default:
            respond(context, status: 404, json: ["error": "no route for \(head.method.rawValue) \(path)"])
        }
    }

    private func echo(_ head: HTTPRequestHead, path: String, query: String) -> [String: Any] {
        [
            "method": head.method.rawValue,
            "path": path,
            "query": query,
            "headers": head.headers.map { [$0.name, $0.value] },
            "body": String(decoding: Data(body.readableBytesView), as: UTF8.self),
            "bodyCount": received,
        ]
    }

    // MARK: Writing

    private func respond(
        _ context: ChannelHandlerContext, status: Int, headers: [(String, String)] = [], json: [String: Any]
    ) {
        let data = (try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])) ?? Data("{}".utf8)
        respond(context, status: status, headers: headers + [("Content-Type", "application/json")], body: ByteBuffer(bytes: data))
    }

    private func respond(_ context: ChannelHandlerContext, status: Int, headers: [(String, String)] = [], body: ByteBuffer?) {
        var fields = HTTPHeaders(headers)
        if let body { fields.add(name: "Content-Length", value: String(body.readableBytes)) }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .init(statusCode: status), headers: fields))), promise: nil)
        if let body, body.readableBytes > 0 { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    private func sendPattern(_ context: ChannelHandlerContext, count: Int) {
        var fields = HTTPHeaders([("Content-Type", "application/octet-stream")])
        fields.add(name: "Content-Length", value: String(count))
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: fields))), promise: nil)
        sendPattern(context, from: 0, count: count)
    }

    /// 1 MiB of the pattern, and the next only once it is written: the server holds one chunk
    /// at a time, however large the body (a 1 GB body must not sit in NIO's write buffer).
    private func sendPattern(_ context: ChannelHandlerContext, from offset: Int, count: Int) {
        guard offset < count else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            return
        }
        let size = min(1 << 20, count - offset)
        // The pattern repeats every 251 bytes: a chunk is a slice of one precomputed run.
        let start = offset % 251
        let chunk = ByteBuffer(bytes: Self.patternRun[start..<(start + size)])
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(chunk)))).assumeIsolated().whenSuccess { [self] in
            sendPattern(context, from: offset + size, count: count)
        }
    }

    /// A body that ends before its declared length: 10 bytes of the pattern, then the
    /// connection closes.
    private func sendCutShort(_ context: ChannelHandlerContext, declaring count: Int) {
        var fields = HTTPHeaders([("Content-Type", "application/octet-stream")])
        fields.add(name: "Content-Length", value: String(count))
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: fields))), promise: nil)
        let sent = ByteBuffer(bytes: Self.patternRun[0..<min(10, count)])
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(sent)))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    private static let patternRun: [UInt8] = (0..<((1 << 20) + 251)).map(patternByte)

    private func sendChunks(_ context: ChannelHandlerContext, count: Int) {
        // No Content-Length on an HTTP/1.1 response: NIO sends Transfer-Encoding: chunked.
        let fields = HTTPHeaders([("Content-Type", "text/plain")])
        context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: fields))), promise: nil)
        for index in 0..<count {
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "chunk \(index)\n")))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// Event `index`, then the next 10 ms later, until `count` (or, for 0, until a write fails
    /// because the client has gone).
    private func sendEvent(_ context: ChannelHandlerContext, index: Int, count: Int, stamped: Bool) {
        let data = stamped ? String(DispatchTime.now().uptimeNanoseconds) : "event \(index)"
        let event = ByteBuffer(string: "id: \(index)\ndata: \(data)\n\n")
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(event)))).assumeIsolated().whenComplete { [self] result in
            guard case .success = result else {
                eventStreams.noteEnded()
                return
            }
            if count > 0, index + 1 == count {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                eventStreams.noteEnded()
                return
            }
            context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(10)) { [self] in
                sendEvent(context, index: index + 1, count: count, stamped: stamped)
            }
        }
    }

    private static func split(_ uri: String) -> (path: String, query: String) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri, "") }
        return (String(uri[..<mark]), String(uri[uri.index(after: mark)...]))
    }
}

/// Counts the event streams a server started and ended, and lets a test wait for either.
public final class EventStreamLog: Sendable {
    private let startedStreams = Tally()
    private let endedStreams = Tally()

    public var started: Int { startedStreams.count }
    public var ended: Int { endedStreams.count }

    func noteStarted() { startedStreams.increment() }
    func noteEnded() { endedStreams.increment() }

    /// Returns once `count` streams have started (their head is on its way to the client).
    public func waitUntilStarted(_ count: Int) async { await startedStreams.wait(until: count) }

    /// Returns once `count` streams have ended.
    public func waitUntilEnded(_ count: Int) async { await endedStreams.wait(until: count) }
}

/// A count that only grows, and the tasks waiting for it to reach a number.
private final class Tally: Sendable {
    private struct State {
        var count = 0
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = NIOLockedValueBox(State())

    var count: Int { state.withLockedValue { $0.count } }

    func increment() {
        let ready = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            state.count += 1
            let count = state.count
            let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
            state.waiters.removeAll { $0.count <= count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    func wait(until count: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLockedValue { state -> Bool in
                if state.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}
