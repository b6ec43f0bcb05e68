import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@testable import HTTPClientStubs

/// A stub's fault, its own framing and its status line go on the wire exactly as asked: read
/// byte for byte by a raw client, and by a real `URLSession`, which must report what the
/// in-process transports report for the same stub.
@Suite("Faults, framing and status lines on the wire")
struct StubServerFaultTests {
    /// The bytes and the ending a raw client sees for `GET /` answered by `response`.
    private func wire(
        _ response: MockResponse, request: String = "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
    ) async throws -> (
        text: String, ending: RawConnection.Ending
    ) {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(where: .path("/")).respond(response)
        let server = try StubServer.serving(stubs) { $0.idleTimeout = 1 }
        defer { server.stop() }
        let port = server.port
        let (bytes, ending) = try await offThePool {
            let connection = try RawConnection(port: port)
            connection.send(request)
            return connection.readToEnd()
        }
        return (String(decoding: bytes, as: UTF8.self), ending)
    }

    // MARK: Faults

    @Test func aResetIsATCPResetWithNothingBeforeIt() async throws {
        let (text, ending) = try await wire(.fault(.connectionReset))
        #expect(text.isEmpty)
        #expect(ending == .reset)
    }

    @Test func anEmptyResponseIsACloseWithoutAByte() async throws {
        let (text, ending) = try await wire(.fault(.emptyResponse))
        #expect(text.isEmpty)
        #expect(ending == .closed)
    }

    @Test func garbageIsItsBytesThenTheClose() async throws {
        let (text, ending) = try await wire(.fault(.garbage(Data("\u{1}not http at all\r\n\r\n".utf8))))
        #expect(text == "\u{1}not http at all\r\n\r\n")
        #expect(ending == .closed)
    }

    @Test func aMalformedChunkFollowsTheHeadAndTheChunksBeforeIt() async throws {
        let (text, ending) = try await wire(.streamed([.text("hello"), .failure(StubFault.malformedChunk)]))
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.contains("Transfer-Encoding: chunked\r\n"))
        #expect(text.hasSuffix("\r\n\r\n5\r\nhello\r\nzz\r\nnot a chunk\r\n"))
        #expect(ending == .closed)
    }

    @Test func aMalformedChunkAloneComesAfterA200Head() async throws {
        let (text, ending) = try await wire(.fault(.malformedChunk))
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.hasSuffix("\r\n\r\nzz\r\nnot a chunk\r\n"))
        #expect(ending == .closed)
    }

    @Test func aResetAfterStreamedPartsComesAfterThem() async throws {
        let (text, ending) = try await wire(.streamed([.text("hi"), .failure(StubFault.connectionReset)]))
        #expect(text.hasSuffix("\r\n\r\n2\r\nhi\r\n"))
        #expect(ending == .reset)
    }

    @Test func aStallSendsNothingAndKeepsTheConnectionUntilTheIdleTimeout() async throws {
        let (text, ending) = try await wire(.fault(.stall))
        // The raw client reads for up to 10 s; the server's idle timeout (1 s here) ends the stall.
        #expect(text.isEmpty)
        #expect(ending == .closed)
    }

    @Test func aDisconnectDuringTheBodyStopsReadingItAndResets() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        let upload = stubs.stub(.post, "/upload").respond(.fault(.disconnectDuringRequestBody))
        let server = try StubServer.serving(stubs)
        defer { server.stop() }
        let port = server.port
        let (bytes, ending) = try await offThePool {
            let connection = try RawConnection(port: port)
            // A body announced far larger than what is sent: the server answers from the head.
            connection.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\nfirst bytes")
            return connection.readToEnd()
        }
        #expect(bytes.isEmpty)
        #expect(ending == .reset)
        #expect(upload.calls.count == 1)
    }

    @Test func aStubWithABodyConditionReadsTheBodyBeforeItsFault() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.post, "/upload").matching(.body("yes")).respond(.fault(.disconnectDuringRequestBody))
        stubs.stub(.post, "/upload").respond(.text("read"))
        let server = try StubServer.serving(stubs)
        defer { server.stop() }
        let port = server.port
        let response = try await offThePool {
            let connection = try RawConnection(port: port)
            connection.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nno")
            return try connection.readResponse()
        }
        #expect(response.text == "read")
    }

    // MARK: A stub's own framing

    @Test func aContentLengthLongerThanTheBodyIsSentAsGivenThenTheClose() async throws {
        let response = MockResponse.status(200, headers: ["Content-Length": "10"], body: Data("abc".utf8)).framedAsGiven()
        let (text, ending) = try await wire(response)
        #expect(text.hasSuffix("\r\nContent-Length: 10\r\n\r\nabc"))
        #expect(!text.contains("Connection:"))
        #expect(ending == .closed)
    }

    @Test func aChunkedBodyGivenAsChunksIsSentAsItsBytes() async throws {
        let response = MockResponse.status(200, headers: ["Transfer-Encoding": "chunked"], body: Data("5\r\nhello\r\n0\r\n\r\n".utf8))
            .framedAsGiven()
        let (text, ending) = try await wire(response)
        #expect(text.hasSuffix("\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"))
        #expect(ending == .closed)
    }

    @Test func withoutItsOwnFramingAStubsContentLengthIsReplacedByTheTrueOne() async throws {
        let (text, _) = try await wire(.status(200, headers: ["Content-Length": "10", "Connection": "close"], body: Data("abc".utf8)))
        #expect(text.contains("Content-Length: 3\r\n"))
        #expect(!text.contains("Content-Length: 10"))
    }

    // MARK: Status lines

    @Test func aReasonPhraseIsTheStubsWhenItGivesOne() async throws {
        let (text, _) = try await wire(.status(200).reason("Everything Is Fine"))
        #expect(text.hasPrefix("HTTP/1.1 200 Everything Is Fine\r\n"))
    }

    @Test(arguments: [(42, "042 "), (299, "299 Success"), (599, "599 Server Error"), (999, "999 ")])
    func anOddStatusGoesOutAsGiven(status: Int, line: String) async throws {
        let (text, _) = try await wire(.status(status))
        #expect(text.hasPrefix("HTTP/1.1 \(line)\r\n"))
    }

    @Test(arguments: [204, 304])
    func aBodilessStatusHasNoBodyAndNoContentLength(status: Int) async throws {
        let (text, _) = try await wire(
            .status(status, body: Data("dropped".utf8)), request: "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(!text.contains("Content-Length"))
        #expect(text.hasSuffix("\r\n\r\n"))
    }
}

/// What a real `URLSession` reports for each fault from a ``StubServer`` is what the in-process
/// transports report for the same stub: one answer, whichever way it is delivered.
@Suite("Faults reach a session as the same error on every transport")
struct FaultParityTests {
    static let cases: [(String, MockResponse)] = [
        ("reset", .fault(.connectionReset)),
        ("empty", .fault(.emptyResponse)),
        ("garbage", .fault(.garbage(Data("not http\r\n\r\n".utf8)))),
        ("malformed chunk", .fault(.malformedChunk)),
        ("reset midway", .streamed([.text("hi"), .failure(StubFault.connectionReset)])),
        ("long Content-Length", MockResponse.status(200, headers: ["Content-Length": "10"], body: Data("abc".utf8)).framedAsGiven()),
        ("stall", .fault(.stall)),
    ]

    /// What `session` makes of `url`: the status and body, or the URLError's code. `timeout` is
    /// the request's: a second where timing out is the outcome (a stall), otherwise one no slow
    /// run reaches, so that a loaded run never turns a reset into a timeout.
    private static func outcome(of session: any URLSessionProtocol, _ url: URL, timeout: TimeInterval = 600) async -> String {
        var request = URLRequest(url: url)
        request.timeoutInterval = timeout
        do {
            let (data, response) = try await session.data(for: request)
            return "\((response as? HTTPURLResponse)?.statusCode ?? 0) \(String(decoding: data, as: UTF8.self))"
        } catch let error as URLError {
            return "URLError \(error.code.rawValue)"
        } catch {
            return "\(error)"
        }
    }

    @Test(.timeLimit(.minutes(10)), arguments: 0..<cases.count)
    func aFaultIsTheSameErrorFromTheServerAndInProcess(index: Int) async throws {
        let (name, response) = Self.cases[index]
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/fault").respond(response)
        let server = try StubServer.serving(stubs)
        defer { server.stop() }
        let timeout: TimeInterval = name == "stall" ? 1 : 600
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        let real = URLSession(configuration: configuration)
        defer { real.invalidateAndCancel() }
        let onTheWire = await Self.outcome(of: real, server.baseURL.appendingPathComponent("fault"), timeout: timeout)
        let url = testURL("https://api.example.com/fault")
        let mock = await Self.outcome(of: MockURLSession(stubs: stubs, configuration: configuration), url, timeout: timeout)
        let urlProtocol = await Self.outcome(of: stubs.makeURLSession(configuration: configuration), url, timeout: timeout)
        #expect(onTheWire.hasPrefix("URLError"), "\(name)")
        #expect(mock == onTheWire, "\(name): MockURLSession")
        #expect(urlProtocol == onTheWire, "\(name): URLProtocol")
    }

    @Test(.timeLimit(.minutes(10)))
    func aDisconnectDuringAnUploadIsTheSameErrorFromTheServerAndInProcess() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.post, "/upload").respond(.fault(.disconnectDuringRequestBody))
        let server = try StubServer.serving(stubs)
        defer { server.stop() }
        let real = URLSession(configuration: .ephemeral)
        defer { real.invalidateAndCancel() }
        func upload(_ session: any URLSessionProtocol, _ url: URL) async -> String {
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.httpBody = Data(count: 8 << 20)
            do {
                _ = try await session.data(for: request)
                return "answered"
            } catch {
                return "URLError \((error as? URLError)?.code.rawValue ?? 0)"
            }
        }
        let onTheWire = await upload(real, server.baseURL.appendingPathComponent("upload"))
        let url = testURL("https://api.example.com/upload")
        #expect(onTheWire == "URLError \(URLError.Code.networkConnectionLost.rawValue)")
        #expect(await upload(MockURLSession(stubs: stubs), url) == onTheWire)
        #expect(await upload(stubs.makeURLSession(), url) == onTheWire)
    }

    @Test func aContentLengthShorterThanTheBodyCutsItOnEveryTransport() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/short").respond(
            MockResponse.status(200, headers: ["Content-Length": "2"], body: Data("abcdef".utf8)).framedAsGiven())
        let server = try StubServer.serving(stubs)
        defer { server.stop() }
        let real = URLSession(configuration: .ephemeral)
        defer { real.invalidateAndCancel() }
        let url = testURL("https://api.example.com/short")
        #expect(await Self.outcome(of: real, server.baseURL.appendingPathComponent("short")) == "200 ab")
        #expect(await Self.outcome(of: MockURLSession(stubs: stubs), url) == "200 ab")
        #expect(await Self.outcome(of: stubs.makeURLSession(), url) == "200 ab")
    }

    @Test func aChunkedBodyGivenAsChunksIsReadAsItsChunksOnEveryTransport() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        let chunked = MockResponse.status(
            200, headers: ["Transfer-Encoding": "chunked"], body: Data("3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n".utf8))
        stubs.stub(.get, "/chunked").respond(chunked.framedAsGiven())
        let server = try StubServer.serving(stubs)
        defer { server.stop() }
        let real = URLSession(configuration: .ephemeral)
        defer { real.invalidateAndCancel() }
        let url = testURL("https://api.example.com/chunked")
        #expect(await Self.outcome(of: real, server.baseURL.appendingPathComponent("chunked")) == "200 abcde")
        #expect(await Self.outcome(of: MockURLSession(stubs: stubs), url) == "200 abcde")
        #expect(await Self.outcome(of: stubs.makeURLSession(), url) == "200 abcde")
    }

    @Test func aStreamingReaderGetsTheChunksBeforeAMalformedOneThenTheError() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/feed").respond(.streamed([.text("one"), .failure(StubFault.malformedChunk)]))
        for transport in Transport.inProcess {
            let (chunks, _) = try await transport.session(stubs).chunks(for: URLRequest(url: testURL("https://api.example.com/feed")))
            var received: [String] = []
            let error = await #expect(throws: URLError.self) {
                for try await chunk in chunks { received.append(String(decoding: chunk, as: UTF8.self)) }
            }
            #expect(received == ["one"], "\(transport)")
            #expect(error?.code == StubFault.malformedChunk.sessionError(for: nil).code, "\(transport)")
        }
    }
}
