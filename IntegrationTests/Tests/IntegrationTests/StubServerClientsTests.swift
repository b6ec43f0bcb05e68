// AsyncHTTPClient and URLSession, real clients over real sockets, against a StubServer: the stubs a
// MockURLSession answers from answer them the same way. Of the HTTPClient module this file takes
// HTTPHeaders alone: its main type's name is AsyncHTTPClient's too.

import AsyncHTTPClient
import Foundation
import HTTPClientMocks
import HTTPClientStubs
import NIOCore
import Testing

import struct HTTPClient.HTTPHeaders

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real client, as these tests drive it.
enum RealClient: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case asyncHTTPClient
    case urlSession

    var testDescription: String { rawValue }

    /// What came back.
    struct Answer: Sendable {
        let status: Int
        let headers: [(name: String, value: String)]
        let body: Data

        var text: String { String(decoding: body, as: UTF8.self) }

        /// Every value of the header `name` (case-insensitive), each line its own.
        func header(_ name: String) -> [String] {
            headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        }
    }

    /// Sends one request and reads the whole answer.
    func send(_ method: String, _ url: URL, headers: [(String, String)] = [], body: Data? = nil) async throws -> Answer {
        switch self {
        case .asyncHTTPClient:
            var request = HTTPClientRequest(url: url.absoluteString)
            request.method = .init(rawValue: method)
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
            let response = try await AsyncHTTPClient.HTTPClient.shared.execute(request, timeout: .seconds(30))
            let bytes = try await response.body.collect(upTo: 64 << 20)
            return Answer(
                status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
                body: Data(bytes.readableBytesView))
        case .urlSession:
            var request = URLRequest(url: url)
            request.httpMethod = method
            for (name, value) in headers { request.addValue(value, forHTTPHeaderField: name) }
            request.httpBody = body
            let (data, response) = try await session.data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            let fields = http.allHeaderFields.compactMap { field in
                (field.key as? String).map { ($0, "\(field.value)") }
            }
            return Answer(status: http.statusCode, headers: fields, body: data)
        }
    }
}

extension ServerSuites {
    @Suite("Real clients against StubServer", .timeLimit(.minutes(2)))
    struct StubServerClientsTests {
        /// A registry whose failures (an unmatched request, a failed verification) fail the running test.
        struct Registry {
            let stubs = StubRegistry("real clients")
        }

        @Test(arguments: RealClient.allCases)
        func everyVerbSendsItsBodyAndGetsOneBack(client: RealClient) async throws {
            let registry = Registry()
            for method in ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] {
                registry.stubs.stub(.init(rawValue: method), "/items/1")
                    .respond(.computed { request in .status(200, body: Data("\(request.method) got \(request.body.count) bytes".utf8)) })
            }
            let server = try StubServer(registry.stubs)
            defer { server.stop() }
            let url = server.baseURL.appendingPathComponent("items/1")
            for method in ["GET", "DELETE", "OPTIONS"] {
                #expect(try await client.send(method, url).text == "\(method) got 0 bytes")
            }
            for method in ["POST", "PUT", "PATCH"] {
                let answer = try await client.send(method, url, headers: [("Content-Type", "text/plain")], body: Data("twelve bytes".utf8))
                #expect(answer.text == "\(method) got 12 bytes")
            }
            #expect(registry.stubs.requests.map(\.method.rawValue) == ["GET", "DELETE", "OPTIONS", "POST", "PUT", "PATCH"])
            #expect(registry.stubs.requests.last?.body == Data("twelve bytes".utf8))
        }

        @Test func aChunkedUploadArrivesWholeAtTheStub() async throws {
            let registry = Registry()
            let upload = registry.stubs.stub(.post, "/upload").respond(.status(201))
            let server = try StubServer(registry.stubs)
            defer { server.stop() }
            var request = HTTPClientRequest(url: server.baseURL.absoluteString + "/upload")
            request.method = .POST
            // No length given: AsyncHTTPClient sends it chunked.
            let parts = AsyncStream<ByteBuffer> { continuation in
                for index in 0..<50 {
                    continuation.yield(ByteBuffer(string: String(repeating: Character(String(index % 10)), count: 1000)))
                }
                continuation.finish()
            }
            request.body = .stream(parts, length: .unknown)
            let response = try await AsyncHTTPClient.HTTPClient.shared.execute(request, timeout: .seconds(30))
            #expect(response.status.code == 201)
            #expect(registry.stubs.requests.first?.headers["Transfer-Encoding"]?.lowercased() == "chunked")
            #expect(upload.calls.first?.body.count == 50_000)
            #expect(upload.calls.first?.body.prefix(1001).last == UInt8(ascii: "1"))
        }

        @Test func aStreamedResponseArrivesChunkByChunkAsTheStubSendsIt() async throws {
            let registry = Registry()
            let parts: [StreamPart] = [.text("first;"), .pause(0.05), .text("second;"), .pause(0.05), .text("third")]
            registry.stubs.stub(.get, "/stream").respond(.streamed(status: 200, headers: ["Content-Type": "text/plain"], parts))
            let server = try StubServer(registry.stubs)
            defer { server.stop() }
            let response = try await AsyncHTTPClient.HTTPClient.shared.execute(
                HTTPClientRequest(url: server.baseURL.absoluteString + "/stream"), timeout: .seconds(30))
            #expect(response.headers["Transfer-Encoding"].first?.lowercased() == "chunked")
            var pieces: [String] = []
            for try await buffer in response.body { pieces.append(String(buffer: buffer)) }
            #expect(pieces == ["first;", "second;", "third"])
        }

        @Test(arguments: RealClient.allCases)
        func serverSentEventsArriveAsAnEventStream(client: RealClient) async throws {
            let registry = Registry()
            registry.stubs.stub(.get, "/events").respond(
                .serverSentEvents([.init(data: "one", lastEventID: "1"), .init(data: "two", lastEventID: "2")], pause: 0.01))
            let server = try StubServer(registry.stubs)
            defer { server.stop() }
            let answer = try await client.send(
                "GET", server.baseURL.appendingPathComponent("events"), headers: [("Accept", "text/event-stream")])
            #expect(answer.header("Content-Type").first?.hasPrefix("text/event-stream") == true)
            #expect(answer.text.contains("id: 1\ndata: one\n\n"))
            #expect(answer.text.contains("id: 2\ndata: two\n\n"))
        }

        @Test(arguments: RealClient.allCases)
        func aHeldResponseWaitsUntilTheTestReleasesIt(client: RealClient) async throws {
            let registry = Registry()
            let gate = HeldResponse("profile")
            registry.stubs.stub(.get, "/profile").respond(.text("ready").held(by: gate))
            let server = try StubServer(registry.stubs)
            defer { server.stop() }
            let url = server.baseURL.appendingPathComponent("profile")
            let answer = Task { try await client.send("GET", url) }
            try await gate.waitUntilHolding()
            // Held: the client is still waiting for its answer.
            #expect(registry.stubs.requests.count == 1)
            gate.release()
            #expect(try await answer.value.text == "ready")
        }

        @Test(arguments: RealClient.allCases)
        func aRedirectIsARealThreeHundredThatTheClientFollows(client: RealClient) async throws {
            let registry = Registry()
            let old = registry.stubs.stub(.get, "/old").respond(.status(302, headers: ["Location": "/new"]))
            let new = registry.stubs.stub(.get, "/new").respond(.text("moved here"))
            let server = try StubServer(registry.stubs)
            defer { server.stop() }
            let answer = try await client.send("GET", server.baseURL.appendingPathComponent("old"))
            #expect(answer.status == 200)
            #expect(answer.text == "moved here")
            registry.stubs.verifyOrder(old, new)
        }

        @Test func eachSetCookieIsItsOwnHeaderLine() async throws {
            let registry = Registry()
            var cookies: HTTPHeaders = [:]
            cookies.add(name: "Set-Cookie", value: "session=abc; Path=/")
            cookies.add(name: "Set-Cookie", value: "theme=dark; Path=/")
            registry.stubs.stub(.get, "/login").respond(.status(200, headers: cookies))
            let server = try StubServer(registry.stubs)
            defer { server.stop() }
            let answer = try await RealClient.asyncHTTPClient.send("GET", server.baseURL.appendingPathComponent("login"))
            #expect(answer.header("Set-Cookie") == ["session=abc; Path=/", "theme=dark; Path=/"])
        }

        @Test func urlSessionStoresTheCookiesAndSendsThemBack() async throws {
            let registry = Registry()
            registry.stubs.stub(.get, "/login").respond(.status(200, headers: ["Set-Cookie": "session=abc; Path=/"]))
            let account = registry.stubs.stub(.get, "/account").respond(.text("yours"))
            let server = try StubServer(registry.stubs)
            defer { server.stop() }
            let configuration = URLSessionConfiguration.ephemeral
            let cookies = URLSession(configuration: configuration)
            defer { cookies.finishTasksAndInvalidate() }
            _ = try await cookies.data(from: server.baseURL.appendingPathComponent("login"))
            _ = try await cookies.data(from: server.baseURL.appendingPathComponent("account"))
            #expect(account.calls.first?.headers["Cookie"] == "session=abc")
        }

        @Test(arguments: RealClient.allCases)
        func aThousandConcurrentRequestsAreEachAnsweredOnce(client: RealClient) async throws {
            let registry = Registry()
            registry.stubs.stub(.get, .prefix("/items/")).respond(.computed { request in .text(request.url.lastPathComponent) })
            let server = try StubServer(registry.stubs)
            defer { server.stop() }
            let base = server.baseURL
            let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<1000 {
                    group.addTask { (index, try await client.send("GET", base.appendingPathComponent("items/\(index)")).text) }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            #expect(answers.count == 1000)
            #expect(answers.allSatisfy { "\($0.key)" == $0.value })
            #expect(registry.stubs.requests.count == 1000)
        }

        @Test(arguments: RealClient.allCases)
        func anUnmatchedRequestGetsA404WithTheReportCredentialsHidden(client: RealClient) async throws {
            // Reporting off: the unmatched request is the point of this test, not a failure of it.
            let stubs = StubRegistry("real clients", reporting: .disabled)
            stubs.stub(.get, "/users/1").respond(.text("Ada"))
            let server = try StubServer(stubs)
            defer { server.stop() }
            let answer = try await client.send(
                "GET", server.baseURL.appendingPathComponent("users/2"), headers: [("Authorization", "Bearer s3cr3t")])
            #expect(answer.status == 404)
            #expect(answer.text.contains("no stub matches"))
            #expect(!answer.text.contains("s3cr3t"))
        }
    }
}
