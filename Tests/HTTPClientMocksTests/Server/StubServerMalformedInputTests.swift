import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@_spi(Engine) @testable import HTTPClientStubs

/// Hostile clients on a real socket: each is answered with the status its input calls for and
/// closed, never a crash or a hang, nothing it sent reaches the stubs, and the server keeps
/// answering everyone else.
@Suite("StubServer malformed input")
struct StubServerMalformedInputTests {
    let failures = CollectedFailures()
    let stubs: StubRegistry

    init() {
        stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/a").respond(.text("A"))
    }

    private func server(_ adjust: (inout StubServer.Configuration) -> Void = { _ in }) throws -> StubServer {
        try StubServer.serving(stubs, adjust)
    }

    private func refusal(_ bytes: Data, by server: StubServer) throws -> (status: Int, closed: Bool) {
        let connection = try RawConnection(port: server.port)
        connection.send(bytes)
        let status = try connection.readResponse().status
        return (status, connection.isClosedByServer())
    }

    @Test func aHeadCutShortByTheClientLeavesTheServerServing() throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send("GET /a HTTP/1.1\r\nHo")
        connection.disconnect()

        #expect(try server.stillServes())
        #expect(stubs.requests.count == 1)
    }

    @Test func moreHeaderLinesThanTheLimitAreA431AndAClose() throws {
        let server = try server()
        defer { server.stop() }
        let lines = String(repeating: "X-Many: y\r\n", count: 300)
        let refused = try refusal(Data("GET /a HTTP/1.1\r\nHost: x\r\n\(lines)\r\n".utf8), by: server)
        #expect(refused.status == 431 && refused.closed)
        #expect(stubs.requests.isEmpty)
    }

    @Test(arguments: [("zz", 400), ("-1", 400), ("", 400), ("ffffffffffffffffffffffff", 413), ("5000000", 413)])
    func aBadChunkSizeIsRefusedAndClosed(size: String, status: Int) throws {
        let server = try server { $0.limits = HTTPServerLimits(maximumBodyBytes: 1024) }
        defer { server.stop() }
        let text = "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\nabc\r\n0\r\n\r\n"
        let refused = try refusal(Data(text.utf8), by: server)
        #expect(refused.status == status && refused.closed)
        #expect(try server.stillServes())
    }

    @Test func aSmuggledRequestNeverReachesTheStubs() throws {
        let server = try server()
        defer { server.stop() }
        let hidden = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
        let text = "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n\(hidden)"
        let refused = try refusal(Data(text.utf8), by: server)
        #expect(refused.status == 400 && refused.closed)
        #expect(stubs.requests.isEmpty)
    }

    @Test(arguments: [[0x00], [0x01], [0x7F], [0xC3, 0xA9]] as [[UInt8]])
    func aControlOrNonASCIIByteInAHeaderNameIsA400(bytes: [UInt8]) throws {
        let server = try server()
        defer { server.stop() }
        let text = Data("GET /a HTTP/1.1\r\nHost: x\r\nX-".utf8) + Data(bytes) + Data(": v\r\n\r\n".utf8)
        let refused = try refusal(text, by: server)
        #expect(refused.status == 400 && refused.closed)
    }

    @Test func aGoodRequestBeforeGarbageIsAnsweredThenTheGarbageIsRefused() throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nNOT HTTP AT ALL\r\n\r\n")

        #expect(try connection.readResponse().text == "A")
        #expect(try connection.readResponse().status == 400)
        #expect(connection.isClosedByServer())
    }

    @Test func aSlowSenderIsAnswered408WhileOthersAreServed() throws {
        let server = try server { $0.readTimeout = 0.2 }
        defer { server.stop() }
        let slow = try RawConnection(port: server.port)
        slow.send("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")

        #expect(try server.stillServes())
        #expect(try slow.readResponse().status == 408)
        #expect(slow.isClosedByServer())
        #expect(stubs.requests.count == 1)
    }

    @Test func aHundredHostileConnectionsAtOnceAreEachRefused() async throws {
        let server = try server()
        defer { server.stop() }
        let hostile = [
            "GET / HTTP/2.0\r\nHost: x\r\n\r\n", "GET /\r\n\r\n", "GET / HTTP/1.1\nHost: x\n\n",
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: x\r\n\r\n", "GET / HTTP/1.1\r\n Host: x\r\n\r\n",
        ]
        let refusals = try await offThePool {
            let connections = try (0..<100).map { index in
                let connection = try RawConnection(port: server.port)
                connection.send(hostile[index % hostile.count])
                return connection
            }
            return try connections.map { try ($0.readResponse().status, $0.isClosedByServer()) }
        }
        #expect(refusals.allSatisfy { [400, 505].contains($0.0) && $0.1 })
        #expect(refusals.count == 100)
        #expect(try server.stillServes())
        #expect(stubs.requests.count == 1)
    }
}
