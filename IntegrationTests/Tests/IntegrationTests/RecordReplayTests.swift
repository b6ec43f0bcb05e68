import Foundation
import HTTPClient
import HTTPClientMocks
import LoopbackServer
import Testing

extension ServerSuites {
    @Suite("Stubs and cassettes with a real server")
    struct RecordReplayTests {
        @Test func recordFromTheLiveServerStopItReplayByteForByteAndLeakNoSecret() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("it-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("live.json")
            let secrets = ["Bearer live-token-8c1f", "live-key-5e2a", "live-cookie-77"]
            let requests: [HTTPClient.Request<Data>] = [
                .get("echo", query: [URLQueryItem(name: "api_key", value: "live-key-5e2a"), URLQueryItem(name: "q", value: "x")]),
                .get("bytes/70000"),
                .get("status/200"),
                .post("users", body: .json(["name": "Ada"])),
            ]

            let server = try await LoopbackServer.start()
            let recorder = HTTPClient(
                session: try CassetteSession(file: file, mode: .all, upstream: session),
                baseURL: server.baseURL, headers: ["Authorization": secrets[0], "Cookie": "sid=\(secrets[2])"])
            var live: [HTTPClient.Response<Data>] = []
            for request in requests { live.append(try await recorder.send(request)) }
            try await server.stop()

            let replayer = HTTPClient(
                session: try CassetteSession(file: file, mode: .none),
                baseURL: server.baseURL, headers: ["Authorization": secrets[0], "Cookie": "sid=\(secrets[2])"])
            // /echo reflects the request's credentials into its body; the cassette keeps that body
            // with them replaced. Every other body must come back byte for byte.
            let hidden = ["Bearer live-token-8c1f", "sid=live-cookie-77", "live-token-8c1f", "live-cookie-77", "live-key-5e2a"]
            var echoedBodies = 0
            for (request, recorded) in zip(requests, live) {
                let replayed = try await replayer.send(request)
                var expected = recorded.body
                if let text = recorded.text, hidden.contains(where: text.contains) {
                    expected = Data(hidden.reduce(text) { $0.replacingOccurrences(of: $1, with: "REDACTED") }.utf8)
                    echoedBodies += 1
                }
                #expect(replayed.statusCode == recorded.statusCode)
                #expect(replayed.body == expected)
                #expect(replayed.headers["Content-Type"] == recorded.headers["Content-Type"])
            }
            #expect(echoedBodies == 1)

            let text = try String(contentsOf: file, encoding: .utf8)
            for secret in secrets {
                #expect(!text.contains(secret), "\(secret) was written to the cassette")
            }
            // The server echoed the request headers into a body: that copy must be hidden too.
            #expect(!text.contains("live-token-8c1f"))
        }

        @Test func passThroughHostsReachTheServerThroughTheURLProtocolTransport() async throws {
            try await withServer { server, _ in
                let stubs = StubRegistry(passthroughHosts: ["127.0.0.1"])
                stubs.stub(.get, "/stubbed").respond(.text("from a stub"))
                let client = HTTPClient(session: stubs.makeURLSession(), baseURL: server.baseURL)
                let stubbed = try await client.send(.get("stubbed"))
                let real = try await client.send(HTTPClient.Request<Echo>.get("echo")).value
                #expect(stubbed.text == "from a stub")
                #expect(real.path == "/echo")
                #expect(stubs.requests.count == 2)
            }
        }
    }
}
