import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

extension ServerSuites {
    /// The same redirect, cookie, upload and download scenarios against the loopback server with a
    /// real `URLSession`, and against stubs that answer as the server does: what the code sees must
    /// be the same.
    @Suite("Stubbed sessions behave like a real one")
    struct SessionFidelityTests {
        /// What code under test can observe of one scenario.
        struct Observed: Equatable, CustomStringConvertible {
            var status: Int?
            var finalPath: String?
            var echoedMethod: String?
            var echoedBody: String?
            var echoedCookie: String?

            var description: String {
                "\(status ?? 0) \(finalPath ?? "-") \(echoedMethod ?? "-") body=\(echoedBody ?? "-") cookie=\(echoedCookie ?? "-")"
            }
        }

        /// Stubs that answer like the server's `/redirect/{code}`, `/login` and `/echo`.
        static func serverLikeStubs(baseURL: URL) -> StubRegistry {
            let stubs = StubRegistry()
            stubs.stub(where: .path(.prefix("/redirect/"))).respond(
                .computed { request in
                    .status(Int(request.path.split(separator: "/").last ?? "") ?? 302, headers: ["Location": "/echo"])
                })
            stubs.stub(where: .path("/login")).respond(.status(303, headers: ["Location": "/echo", "Set-Cookie": "sid=42; Path=/"]))
            stubs.stub(where: .path("/echo")).respond(
                .computed { request in
                    var headers = request.headers.map { [$0.name, $0.value] }
                    headers.sort { $0[0] < $1[0] }
                    let echo: [String: Any] = [
                        "method": request.method.rawValue, "path": request.path, "query": "", "headers": headers,
                        "body": String(decoding: request.body, as: UTF8.self), "bodyCount": request.body.count,
                    ]
                    return .json(raw: String(decoding: try JSONSerialization.data(withJSONObject: echo), as: UTF8.self))
                })
            return stubs
        }

        static func observe(_ session: any URLSessionProtocol, _ requests: [URLRequest]) async throws -> Observed {
            var observed = Observed()
            for request in requests {
                let (data, response) = try await session.data(for: request)
                observed.status = (response as? HTTPURLResponse)?.statusCode
                observed.finalPath = response.url?.path
                if let echo = try? JSONDecoder().decode(Echo.self, from: data) {
                    observed.echoedMethod = echo.method
                    observed.echoedBody = echo.body
                    observed.echoedCookie = echo.header("Cookie").first
                }
            }
            return observed
        }

        static func request(_ method: String, _ url: URL, body: String? = nil) -> URLRequest {
            var request = URLRequest(url: url)
            request.httpMethod = method
            request.httpBody = body.map { Data($0.utf8) }
            if body != nil { request.setValue("text/plain", forHTTPHeaderField: "Content-Type") }
            return request
        }

        struct Scenario: Sendable {
            let name: String
            let requests: @Sendable (URL) -> [URLRequest]
            /// The body RFC 9110 says the redirected request carries, where corelibs' URLSession
            /// sends none (it drops the body of every redirected request); the stubs follow the RFC,
            /// as Apple's URLSession does.
            var bodyCorelibsDrops: String?
        }

        static let scenarios: [Scenario] = [
            Scenario(name: "POST, 303: becomes a GET without body") {
                [request("POST", $0.appendingPathComponent("redirect/303"), body: "x")]
            },
            Scenario(name: "POST, 302: becomes a GET") { [request("POST", $0.appendingPathComponent("redirect/302"), body: "x")] },
            Scenario(
                name: "POST, 307: method and body kept",
                requests: { [request("POST", $0.appendingPathComponent("redirect/307"), body: "x")] },
                bodyCorelibsDrops: "x"),
            Scenario(
                name: "PUT, 301: method and body kept",
                requests: { [request("PUT", $0.appendingPathComponent("redirect/301"), body: "y")] },
                bodyCorelibsDrops: "y"),
            Scenario(name: "a cookie set while redirecting, then sent back") {
                [request("POST", $0.appendingPathComponent("login"), body: "user=ada"), request("GET", $0.appendingPathComponent("echo"))]
            },
        ]

        @Test(arguments: 0..<scenarios.count)
        func aScenarioLooksTheSameOnEveryTransport(_ index: Int) async throws {
            let scenario = Self.scenarios[index]
            try await withServer { server, _ in
                let real = try await Self.observe(URLSession(configuration: .ephemeral), scenario.requests(server.baseURL))
                let stubs = Self.serverLikeStubs(baseURL: server.baseURL)
                let mocked = try await Self.observe(MockURLSession(stubs: stubs), scenario.requests(server.baseURL))
                let protocolled = try await Self.observe(stubs.makeURLSession(), scenario.requests(server.baseURL))
                #expect(real.status == 200, "\(scenario.name): \(real)")
                var expected = real
                #if canImport(FoundationNetworking)
                if let body = scenario.bodyCorelibsDrops {
                    // Checked, so the day corelibs keeps the body this fails and the note can go.
                    #expect(real.echoedBody == "", "\(scenario.name): corelibs now keeps the body")
                    expected.echoedBody = body
                }
                #endif
                #expect(mocked == expected, "\(scenario.name)")
                #expect(protocolled == expected, "\(scenario.name)")
            }
        }

        @Test func anUploadsBodyArrivesLikeTheServerSeesIt() async throws {
            try await withServer { server, _ in
                let target = Self.request("POST", server.baseURL.appendingPathComponent("echo"))
                let (realData, _) = try await session.upload(for: target, from: Data("payload".utf8))
                let (mockedData, _) = try await MockURLSession(stubs: Self.serverLikeStubs(baseURL: server.baseURL))
                    .upload(for: target, from: Data("payload".utf8))
                let real = try JSONDecoder().decode(Echo.self, from: realData)
                let mocked = try JSONDecoder().decode(Echo.self, from: mockedData)
                #expect(real.body == "payload")
                #expect(mocked.body == real.body)
            }
        }

        @Test func aDownloadHoldsTheSameBytes() async throws {
            try await withServer { server, _ in
                let target = URLRequest(url: server.baseURL.appendingPathComponent("bytes/100000"))
                let (realFile, _) = try await session.download(for: target, delegate: nil)
                defer { try? FileManager.default.removeItem(at: realFile) }
                let stubs = StubRegistry()
                stubs.stub(.get, "/bytes/100000").respond(.status(200, body: patternData(count: 100_000)))
                let (mockedFile, _) = try await MockURLSession(stubs: stubs).download(for: target)
                defer { try? FileManager.default.removeItem(at: mockedFile) }
                #expect(try Data(contentsOf: mockedFile) == Data(contentsOf: realFile))
                #expect(try Data(contentsOf: realFile).count == 100_000)
            }
        }
    }
}
