import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@Suite("Redirects, followed as URLSession follows them")
struct RedirectTests {
    func post(_ url: String, body: String) -> URLRequest {
        var request = URLRequest(url: testURL(url))
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        return request
    }

    @Test(arguments: StubTransport.allCases)
    func aRedirectIsFollowedAndEveryHopIsRecorded(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        let old = stubs.stub(.get, "/old").respond(.status(302, headers: ["Location": "https://h/new"]))
        let new = stubs.stub(.get, "/new").respond(.text("moved here"))
        let (data, response) = try await transport.session(stubs).data(for: URLRequest(url: testURL("https://h/old")))
        #expect(String(decoding: data, as: UTF8.self) == "moved here")
        #expect(response.url == testURL("https://h/new"))
        #expect(stubs.requests.map(\.path) == ["/old", "/new"])
        #expect(old.callCount == 1 && new.callCount == 1)
    }

    @Test(arguments: StubTransport.allCases)
    func aRelativeLocationResolvesAgainstTheRequestURL(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/a/b").respond(.status(301, headers: ["Location": "../c?x=1"]))
        stubs.stub(.get, "https://h/c?x=1").respond(.text("c"))
        let (data, _) = try await transport.session(stubs).data(for: URLRequest(url: testURL("https://h/a/b")))
        #expect(data == Data("c".utf8))
    }

    @Test(arguments: StubTransport.allCases)
    func a303TurnsAPostIntoAGetWithoutItsBody(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.post, "/orders").respond(.status(303, headers: ["Location": "/orders/7"]))
        let target = stubs.stub(.get, "/orders/7").respond(.text("order 7"))
        _ = try await transport.session(stubs).data(for: post("https://h/orders", body: "item=1"))
        #expect(target.calls.first?.body.isEmpty == true)
        #expect(target.calls.first?.headers["Content-Type"] == nil)
    }

    @Test(arguments: StubTransport.allCases)
    func a303ToAHeadRequestStaysHeadWithoutABody(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.head, "/orders").respond(.status(303, headers: ["Location": "/orders/7"]))
        let target = stubs.stub(.head, "/orders/7").respond(.status(200))
        _ = try await transport.session(stubs).data(
            for: request("HEAD", "https://h/orders", headers: ["Content-Type": "text/plain"], body: Data("x".utf8)))
        #expect(target.calls.first?.body.isEmpty == true)
        #expect(target.calls.first?.headers["Content-Type"] == nil)
    }

    @Test(arguments: StubTransport.allCases, [301, 302])
    func a301Or302TurnsAPostIntoAGetWithoutItsBody(_ transport: StubTransport, status: Int) async throws {
        let stubs = StubRegistry()
        stubs.stub(.post, "/orders").respond(.status(status, headers: ["Location": "/orders/7"]))
        let target = stubs.stub(.get, "/orders/7").respond(.text("order 7"))
        _ = try await transport.session(stubs).data(for: post("https://h/orders", body: "item=1"))
        #expect(target.calls.first?.body.isEmpty == true)
        #expect(target.calls.first?.headers["Content-Type"] == nil)
    }

    @Test(arguments: StubTransport.allCases, [301, 302])
    func a301Or302KeepsAPutWithItsBody(_ transport: StubTransport, status: Int) async throws {
        let stubs = StubRegistry()
        stubs.stub(.put, "/v1/orders/7").respond(.status(status, headers: ["Location": "/v2/orders/7"]))
        let target = stubs.stub(.put, "/v2/orders/7").matching(.body("item=1")).respond(.status(204))
        var put = post("https://h/v1/orders/7", body: "item=1")
        put.httpMethod = "PUT"
        let (_, response) = try await transport.session(stubs).data(for: put)
        #expect(response.status == 204)
        #expect(target.callCount == 1)
    }

    @Test(arguments: StubTransport.allCases)
    func a307KeepsTheMethodAndTheBody(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.post, "/v1/orders").respond(.status(307, headers: ["Location": "/v2/orders"]))
        let target = stubs.stub(.post, "/v2/orders").matching(.body("item=1")).respond(.status(201))
        let (_, response) = try await transport.session(stubs).data(for: post("https://h/v1/orders", body: "item=1"))
        #expect(response.status == 201)
        #expect(target.callCount == 1)
    }

    /// The headers a request carries into a redirect, the reserved ones and one of its own.
    static let sentHeaders = [
        "Authorization": "Bearer secret", "Proxy-Authorization": "Basic cHJveHk6cHc=", "Proxy-Authenticate": "Basic",
        "WWW-Authenticate": "Basic", "Connection": "close", "Host": "api.example", "Cookie": "sid=by-hand", "X-Trace": "42",
    ]

    /// Follows a redirect from `https://api.example/file` to `target` with ``sentHeaders`` and
    /// gives the headers the second hop arrived with.
    func headersOfTheNextHop(to target: String, on transport: StubTransport) async throws -> [String: String] {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://api.example/file").respond(.status(302, headers: ["Location": target]))
        let next = stubs.stub(.get, StubTarget(target)).respond(.text("bytes"))
        var request = URLRequest(url: testURL("https://api.example/file"))
        for (name, value) in Self.sentHeaders { request.setValue(value, forHTTPHeaderField: name) }
        _ = try await transport.session(stubs).data(for: request)
        let hop = try #require(next.calls.first)
        return Dictionary(uniqueKeysWithValues: Self.sentHeaders.keys.compactMap { name in hop.headers[name].map { (name, $0) } })
    }

    static let reservedHeaders = [
        "Authorization", "Proxy-Authorization", "Proxy-Authenticate", "WWW-Authenticate", "Connection", "Host", "Cookie",
    ]

    @Test(arguments: StubTransport.allCases)
    func theReservedHeadersAreNotCarriedToTheSameOrigin(_ transport: StubTransport) async throws {
        let headers = try await headersOfTheNextHop(to: "https://api.example/v2/file", on: transport)
        #expect(Self.reservedHeaders.filter { headers[$0] != nil } == [])
    }

    @Test(arguments: StubTransport.allCases)
    func theReservedHeadersAreNotCarriedToAnotherOrigin(_ transport: StubTransport) async throws {
        let headers = try await headersOfTheNextHop(to: "https://cdn.example/file", on: transport)
        #expect(Self.reservedHeaders.filter { headers[$0] != nil } == [])
    }

    @Test(arguments: StubTransport.allCases, ["https://api.example/v2/file", "https://cdn.example/file"])
    func theRequestsOwnHeadersAreCarriedToEveryHop(_ transport: StubTransport, target: String) async throws {
        let headers = try await headersOfTheNextHop(to: target, on: transport)
        #expect(headers["X-Trace"] == "42")
    }

    @Test(arguments: StubTransport.allCases)
    func aRedirectLoopFailsAfterTheHopLimit(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/loop").respond(.status(302, headers: ["Location": "/loop"]))
        let error = await #expect(throws: URLError.self) {
            try await transport.session(stubs).data(for: URLRequest(url: testURL("https://h/loop")))
        }
        #expect(error?.code == .httpTooManyRedirects)
        #expect(stubs.requests.count == 17)  // the request and 16 redirects
    }

    @Test(arguments: StubTransport.allCases)
    func aSessionThatDoesNotFollowGetsTheRedirectItself(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/old").respond(.status(302, headers: ["Location": "/new"]))
        let (_, response) = try await transport.session(stubs, followsRedirects: false).data(for: URLRequest(url: testURL("https://h/old")))
        #expect(response.status == 302)
        #expect(stubs.requests.count == 1)
    }

    @Test func aStubCanSwitchFollowingOff() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/old").respond(.status(301, headers: ["Location": "/new"])).followingRedirects(false)
        let (_, response) = try await MockURLSession(stubs: stubs).data(for: URLRequest(url: testURL("https://h/old")))
        #expect(response.status == 301)
    }

    @Test func aLocationThatIsNotAnHTTPURLIsDeliveredAsItIs() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/odd").respond(.status(302, headers: ["Location": "ftp://elsewhere/x"]))
        let (_, response) = try await MockURLSession(stubs: stubs).data(for: URLRequest(url: testURL("https://h/odd")))
        #expect(response.status == 302)
    }
}
