import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// Where redirects are not followed (documented), each test checks that the stub's 3xx itself
/// arrives and that it was the only request: ``send(_:on:_:expecting:)``.
@Suite("Redirects, followed as URLSession follows them")
struct RedirectTests {
    func post(_ url: String, body: String) -> URLRequest {
        var request = URLRequest(url: testURL(url))
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        return request
    }

    /// Sends `request` through `transport` and returns the answer it ends with; where redirects
    /// are not followed, checks that the redirect with `status` itself arrived as the only
    /// request, and returns nil.
    func send(
        _ request: URLRequest, on transport: Transport, _ stubs: StubRegistry, expecting status: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (Data, URLResponse)? {
        let answer = try await transport.session(stubs).data(for: request)
        guard transport.differs(in: .redirects) else { return answer }
        #expect(answer.1.status == status, sourceLocation: sourceLocation)
        #expect((answer.1 as? HTTPURLResponse)?.value(forHTTPHeaderField: "Location") != nil, sourceLocation: sourceLocation)
        #expect(stubs.requests.count == 1, sourceLocation: sourceLocation)
        return nil
    }

    @Test(arguments: Transport.allCases)
    func aRedirectIsFollowedAndEveryHopIsRecorded(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let old = stubs.stub(.get, "/old").respond(.status(302, headers: ["Location": "https://h/new"]))
        let new = stubs.stub(.get, "/new").respond(.text("moved here")).allowingUnused()
        guard let (data, response) = try await send(URLRequest(url: testURL("https://h/old")), on: transport, stubs, expecting: 302)
        else { return }
        #expect(String(decoding: data, as: UTF8.self) == "moved here")
        #expect(response.url == testURL("https://h/new"))
        #expect(stubs.requests.map(\.path) == ["/old", "/new"])
        #expect(old.callCount == 1 && new.callCount == 1)
    }

    @Test(arguments: Transport.allCases)
    func aRelativeLocationResolvesAgainstTheRequestURL(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/a/b").respond(.status(301, headers: ["Location": "../c?x=1"]))
        stubs.stub(.get, "https://h/c?x=1").respond(.text("c")).allowingUnused()
        guard let (data, _) = try await send(URLRequest(url: testURL("https://h/a/b")), on: transport, stubs, expecting: 301)
        else { return }
        #expect(data == Data("c".utf8))
    }

    @Test(arguments: Transport.allCases)
    func a303TurnsAPostIntoAGetWithoutItsBody(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.post, "/orders").respond(.status(303, headers: ["Location": "/orders/7"]))
        let target = stubs.stub(.get, "/orders/7").respond(.text("order 7")).allowingUnused()
        guard try await send(post("https://h/orders", body: "item=1"), on: transport, stubs, expecting: 303) != nil else { return }
        #expect(target.calls.first?.body.isEmpty == true)
        #expect(target.calls.first?.headers["Content-Type"] == nil)
    }

    @Test(arguments: Transport.allCases)
    func a303ToAHeadRequestStaysHeadWithoutABody(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.head, "/orders").respond(.status(303, headers: ["Location": "/orders/7"]))
        let target = stubs.stub(.head, "/orders/7").respond(.status(200)).allowingUnused()
        let head = request("HEAD", "https://h/orders", headers: ["Content-Type": "text/plain"], body: Data("x".utf8))
        guard try await send(head, on: transport, stubs, expecting: 303) != nil else { return }
        #expect(target.calls.first?.body.isEmpty == true)
        #expect(target.calls.first?.headers["Content-Type"] == nil)
    }

    @Test(arguments: Transport.allCases, [301, 302])
    func a301Or302TurnsAPostIntoAGetWithoutItsBody(_ transport: Transport, status: Int) async throws {
        let stubs = StubRegistry()
        stubs.stub(.post, "/orders").respond(.status(status, headers: ["Location": "/orders/7"]))
        let target = stubs.stub(.get, "/orders/7").respond(.text("order 7")).allowingUnused()
        guard try await send(post("https://h/orders", body: "item=1"), on: transport, stubs, expecting: status) != nil else { return }
        #expect(target.calls.first?.body.isEmpty == true)
        #expect(target.calls.first?.headers["Content-Type"] == nil)
    }

    @Test(arguments: Transport.allCases, [301, 302])
    func a301Or302KeepsAPutWithItsBody(_ transport: Transport, status: Int) async throws {
        let stubs = StubRegistry()
        stubs.stub(.put, "/v1/orders/7").respond(.status(status, headers: ["Location": "/v2/orders/7"]))
        let target = stubs.stub(.put, "/v2/orders/7").matching(.body("item=1")).respond(.status(204)).allowingUnused()
        var put = post("https://h/v1/orders/7", body: "item=1")
        put.httpMethod = "PUT"
        guard let (_, response) = try await send(put, on: transport, stubs, expecting: status) else { return }
        #expect(response.status == 204)
        #expect(target.callCount == 1)
    }

    @Test(arguments: Transport.allCases)
    func a307KeepsTheMethodAndTheBody(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.post, "/v1/orders").respond(.status(307, headers: ["Location": "/v2/orders"]))
        let target = stubs.stub(.post, "/v2/orders").matching(.body("item=1")).respond(.status(201)).allowingUnused()
        guard let (_, response) = try await send(post("https://h/v1/orders", body: "item=1"), on: transport, stubs, expecting: 307)
        else { return }
        #expect(response.status == 201)
        #expect(target.callCount == 1)
    }

    /// The headers a request carries into a redirect, the reserved ones and one of its own.
    static let sentHeaders = [
        "Authorization": "Bearer secret", "Proxy-Authorization": "Basic cHJveHk6cHc=", "Proxy-Authenticate": "Basic",
        "WWW-Authenticate": "Basic", "Connection": "close", "Host": "api.example", "Cookie": "sid=by-hand", "X-Trace": "42",
    ]

    /// Follows a redirect from `https://api.example/file` to `target` with ``sentHeaders`` and
    /// gives the headers the second hop arrived with; nil where redirects are not followed.
    func headersOfTheNextHop(
        to target: String, on transport: Transport, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String: String]? {
        let stubs = StubRegistry()
        stubs.stub(.get, "/file").respond(.status(302, headers: ["Location": target]))
        let next = stubs.stub(.get, StubTarget(target)).respond(.text("bytes")).allowingUnused()
        var request = URLRequest(url: testURL("https://api.example/file"))
        for (name, value) in Self.sentHeaders { request.setValue(value, forHTTPHeaderField: name) }
        guard try await send(request, on: transport, stubs, expecting: 302, sourceLocation: sourceLocation) != nil else { return nil }
        let hop = try #require(next.calls.first)
        return Dictionary(uniqueKeysWithValues: Self.sentHeaders.keys.compactMap { name in hop.headers[name].map { (name, $0) } })
    }

    static let reservedHeaders = [
        "Authorization", "Proxy-Authorization", "Proxy-Authenticate", "WWW-Authenticate", "Connection", "Host", "Cookie",
    ]

    @Test(arguments: Transport.allCases)
    func theReservedHeadersAreNotCarriedToTheSameOrigin(_ transport: Transport) async throws {
        guard let headers = try await headersOfTheNextHop(to: "https://api.example/v2/file", on: transport) else { return }
        #expect(Self.reservedHeaders.filter { headers[$0] != nil } == [])
    }

    @Test(arguments: Transport.allCases)
    func theReservedHeadersAreNotCarriedToAnotherOrigin(_ transport: Transport) async throws {
        guard let headers = try await headersOfTheNextHop(to: "https://cdn.example/file", on: transport) else { return }
        #expect(Self.reservedHeaders.filter { headers[$0] != nil } == [])
    }

    @Test(arguments: Transport.allCases, ["https://api.example/v2/file", "https://cdn.example/file"])
    func theRequestsOwnHeadersAreCarriedToEveryHop(_ transport: Transport, target: String) async throws {
        guard let headers = try await headersOfTheNextHop(to: target, on: transport) else { return }
        #expect(headers["X-Trace"] == "42")
    }

    @Test(arguments: Transport.allCases)
    func aRedirectLoopFailsAfterTheHopLimit(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/loop").respond(.status(302, headers: ["Location": "/loop"]))
        if transport.differs(in: .redirects) {
            _ = try await send(URLRequest(url: testURL("https://h/loop")), on: transport, stubs, expecting: 302)
            return
        }
        let error = await #expect(throws: URLError.self) {
            try await transport.session(stubs).data(for: URLRequest(url: testURL("https://h/loop")))
        }
        #expect(error?.code == .httpTooManyRedirects)
        #expect(stubs.requests.count == 17)  // the request and 16 redirects
    }

    @Test(arguments: Transport.allCases)
    func aSessionThatDoesNotFollowGetsTheRedirectItself(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/old").respond(.status(302, headers: ["Location": "/new"]))
        let (_, response) = try await transport.session(stubs, followsRedirects: false).data(for: URLRequest(url: testURL("https://h/old")))
        #expect(response.status == 302)
        #expect(stubs.requests.count == 1)
    }

    @Test(arguments: Transport.allCases)
    func aStubCanSwitchFollowingOff(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/old").respond(.status(301, headers: ["Location": "/new"])).followingRedirects(false)
        let (_, response) = try await transport.session(stubs).data(for: URLRequest(url: testURL("https://h/old")))
        #expect(response.status == 301)
        #expect(stubs.requests.count == 1)
    }

    @Test(arguments: Transport.allCases)
    func aLocationThatIsNotAnHTTPURLIsDeliveredAsItIs(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/odd").respond(.status(302, headers: ["Location": "ftp://elsewhere/x"]))
        let (_, response) = try await transport.session(stubs).data(for: URLRequest(url: testURL("https://h/odd")))
        #expect(response.status == 302)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Location") == "ftp://elsewhere/x")
    }
}
