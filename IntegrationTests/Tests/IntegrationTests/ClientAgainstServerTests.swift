import Foundation
import HTTPClient
import HTTPClientMocks
import LoopbackServer
import Testing

extension ServerSuites {
    @Suite("HTTPClient over URLSession against a real server")
    struct ClientAgainstServerTests {
        @Test(
            "every verb, with and without a body",
            arguments: [
                ("GET", nil), ("DELETE", nil), ("OPTIONS", nil),
                ("POST", "created"), ("PUT", "replaced"), ("PATCH", "patched"), ("POST", nil),
            ] as [(String, String?)])
        func everyVerb(method: String, body: String?) async throws {
            try await withServer { _, client in
                let request = HTTPClient.Request<Echo>(method: HTTPMethod(rawValue: method), url: "echo", body: body.map { .text($0) })
                let echo = try await client.send(request).value
                #expect(echo.method == method)
                #expect(echo.body == (body ?? ""))
                #expect(echo.header("Content-Type") == (body == nil ? [] : ["text/plain; charset=utf-8"]))
            }
        }

        @Test func headHasStatusAndHeadersButNoBody() async throws {
            try await withServer { _, client in
                let response = try await client.send(.head("status/200"))
                #expect(response.statusCode == 200)
                #expect(response.body.isEmpty)
                #expect(response.headers["x-status"] == "200")
            }
        }

        @Test func queryEncodingSurvivesTheWire() async throws {
            try await withServer { _, client in
                let items = [
                    URLQueryItem(name: "q", value: "a b"), URLQueryItem(name: "plus", value: "1+1"),
                    URLQueryItem(name: "uni", value: "café ✓"), URLQueryItem(name: "tag", value: "x"),
                    URLQueryItem(name: "tag", value: "y"), URLQueryItem(name: "amp", value: "a&b=c/d?"),
                ]
                let echo = try await client.send(HTTPClient.Request<Echo>.get("echo", query: items)).value
                #expect(echo.query == "q=a%20b&plus=1%2B1&uni=caf%C3%A9%20%E2%9C%93&tag=x&tag=y&amp=a%26b%3Dc%2Fd%3F")
                var components = URLComponents()
                components.percentEncodedQuery = echo.query
                #expect(components.queryItems == items)
            }
        }

        @Test func headersRoundTripCaseInsensitively() async throws {
            try await withServer { _, client in
                let echo = try await client.send(
                    HTTPClient.Request<Echo>.get("echo", headers: ["X-Custom-Thing": "value 1", "x-lower": "two"])
                ).value
                #expect(echo.header("x-custom-thing") == ["value 1"])
                #expect(echo.header("X-LOWER") == ["two"])
                let response = try await client.send(.get("status/202"))
                #expect(response.headers["X-STATUS"] == "202")
                #expect(response.headers["content-type"] == "application/json")
            }
        }

        @Test("4xx and 5xx keep their bodies in the error", arguments: [400, 404, 418, 500, 503])
        func errorStatusesKeepBodies(status: Int) async throws {
            try await withServer { _, client in
                let error = await #expect(throws: HTTPClientError.self) { try await client.send(.get("status/\(status)")) }
                guard case .unacceptableStatus(let response) = error else {
                    Issue.record("expected unacceptableStatus, got \(String(describing: error))")
                    return
                }
                #expect(response.statusCode == status)
                #expect(response.text?.contains(#""status":\#(status)"#) == true)
            }
        }

        @Test func noContentAndEmptyBodies() async throws {
            try await withServer { _, client in
                let noContent = try await client.send(.get("no-content"))
                #expect(noContent.statusCode == 204)
                #expect(noContent.body.isEmpty)
                let empty = try await client.send(.get("empty"))
                #expect(empty.statusCode == 200)
                #expect(empty.body.isEmpty)
                await #expect(throws: HTTPClientError.self) { try await client.send(HTTPClient.Request<Echo>.get("empty")).value }
            }
        }

        @Test("large downloads are byte-exact", arguments: [1 << 20, 100 << 20])
        func largeDownloads(size: Int) async throws {
            try await withServer { _, client in
                let response = try await client.send(.get("bytes/\(size)"))
                #expect(response.body.count == size)
                #expect(checksum(of: response.body) == checksum(of: patternData(count: size)))
                #expect(response.body.prefix(600) == patternData(count: 600))
            }
        }

        @Test("large uploads are byte-exact", arguments: [1 << 20, 100 << 20])
        func largeUploads(size: Int) async throws {
            try await withServer { _, client in
                struct Upload: Decodable {
                    let count: Int
                    let checksum: String
                }
                let body = patternData(count: size)
                let upload = try await client.send(HTTPClient.Request<Upload>.post("upload", body: .data(body))).value
                #expect(upload.count == size)
                #expect(upload.checksum == String(checksum(of: body)))
            }
        }

        @Test func chunkedResponsesArriveWhole() async throws {
            try await withServer { _, client in
                let response = try await client.send(.get("chunked/50"))
                #expect(response.text == (0..<50).map { "chunk \($0)\n" }.joined())
                #expect(response.headers["Content-Length"] == nil)
            }
        }

        @Test func aSlowEndpointTimesOut() async throws {
            try await withServer { server, _ in
                let client = HTTPClient(session: session, baseURL: server.baseURL, timeout: 1)
                let error = await #expect(throws: HTTPClientError.self) { try await client.send(.get("slow/4")) }
                #expect((error?.underlyingError as? URLError)?.code == .timedOut)
            }
        }

        @Test func aClosedPortIsConnectionRefused() async throws {
            let server = try await LoopbackServer.start()
            try await server.stop()
            let error = await #expect(throws: HTTPClientError.self) {
                try await HTTPClient(session: session).get(server.baseURL.appendingPathComponent("echo"))
            }
            #expect((error?.underlyingError as? URLError)?.code == .cannotConnectToHost)
        }

        @Test func cancellingMidFlightEndsWithCancelledAndNoSecondCompletion() async throws {
            try await withServer { server, client in
                let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()
                let task = client.get(url: server.baseURL.appendingPathComponent("hang"), completion: recorder.record)
                task.cancel()
                // A later request through the same session is answered after the cancellation has
                // been processed; by then a second completion would have arrived.
                while recorder.allValues.count == 0 { await Task.yield() }
                _ = try await client.send(.get("echo"))
                #expect(recorder.allValues.count == 1)
                guard case .failure(let error) = try #require(recorder.value) else {
                    Issue.record("expected a cancellation")
                    return
                }
                #expect(error.isCancelled)

                let call = Task { try await client.send(.get("hang")) }
                call.cancel()
                #expect((await call.result.failure as? HTTPClientError)?.isCancelled == true)
            }
        }

        @Test("redirects are followed", arguments: [301, 302, 307])
        func redirects(status: Int) async throws {
            try await withServer { server, client in
                let response = try await client.send(.get("redirect/\(status)"))
                #expect(response.statusCode == 200)
                #expect(response.url?.path == "/echo")
                #expect(try response.decode(Echo.self).method == "GET")
            }
        }

        @Test func a307KeepsTheMethodAndBody() async throws {
            try await withServer { _, client in
                let echo = try await client.send(HTTPClient.Request<Echo>.post("redirect/307", body: .text("kept"))).value
                #expect(echo.method == "POST")
                #if canImport(FoundationNetworking)
                // swift-corelibs-foundation re-sends a 307 without the body (Darwin keeps it). The
                // client cannot fix this without owning the session's delegate; kept visible here.
                withKnownIssue("corelibs drops the request body when following a 307") {
                    #expect(echo.body == "kept")
                }
                #else
                #expect(echo.body == "kept")
                #endif
            }
        }

        @Test func aThousandConcurrentRequestsAllCompleteExactlyOnce() async throws {
            try await withServer { _, client in
                let count = 1_000
                let seen = try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<count {
                        group.addTask {
                            let echo = try await client.send(
                                HTTPClient.Request<Echo>.get("echo", query: [URLQueryItem(name: "i", value: "\(index)")])
                            ).value
                            return Int(echo.query.dropFirst(2)) ?? -1
                        }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(seen.count == count)
                #expect(Set(seen) == Set(0..<count))
            }
        }

        @Test func jsonRoundTrip() async throws {
            struct NewUser: Encodable, Sendable {
                let name: String
                let tags: [String]
            }
            struct User: Decodable, Equatable, Sendable {
                let id: Int
                let name: String
                let tags: [String]
            }
            try await withServer { server, client in
                let created = try await client.send(
                    HTTPClient.Request<User>.post(
                        server.baseURL.appendingPathComponent("users"), body: .json(NewUser(name: "Ada", tags: ["math", "poetry"])))
                ).value
                #expect(created == User(id: 42, name: "Ada", tags: ["math", "poetry"]))
            }
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
