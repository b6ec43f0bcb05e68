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

    @Test func authorizationIsNotCarriedToAnotherHost() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://api.example/file").respond(.status(302, headers: ["Location": "https://cdn.example/file"]))
        let cdn = stubs.stub(.get, "https://cdn.example/file").respond(.text("bytes"))
        var request = URLRequest(url: testURL("https://api.example/file"))
        request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        _ = try await MockURLSession(stubs: stubs).data(for: request)
        #expect(cdn.calls.first?.headers["Authorization"] == nil)
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
