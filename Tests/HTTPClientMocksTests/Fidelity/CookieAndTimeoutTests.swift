import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@Suite("Cookies and timeouts, as a real session has them")
struct CookieAndTimeoutTests {
    @Test(arguments: StubTransport.allCases)
    func aCookieSetByAStubIsStoredAndSentBack(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.post, "/login").respond(.status(204, headers: ["Set-Cookie": "sid=abc123; Path=/; HttpOnly"]))
        let me = stubs.stub(.get, "/me").matching(.header("Cookie", "sid=abc123")).respond(.text("ada"))
        let configuration = URLSessionConfiguration.ephemeral
        let session = transport.session(stubs, configuration: configuration)
        var login = URLRequest(url: testURL("https://h/login"))
        login.httpMethod = "POST"
        _ = try await session.data(for: login)
        let (data, _) = try await session.data(for: URLRequest(url: testURL("https://h/me")))
        #expect(data == Data("ada".utf8))
        #expect(me.callCount == 1)
        #expect(configuration.httpCookieStorage?.cookies(for: testURL("https://h/me"))?.map(\.name) == ["sid"])
    }

    /// The storage is asked on every request that may carry cookies: one that was empty when
    /// the session was made, and for its first request, can be filled by hand at any time.
    @Test(arguments: StubTransport.allCases)
    func aCookiePutInTheStorageByHandAfterARequestIsSentWithTheNext(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/me").respond(.text("ada"))
        let configuration = URLSessionConfiguration.ephemeral
        let session = transport.session(stubs, configuration: configuration)
        _ = try await session.data(for: URLRequest(url: testURL("https://h/me")))
        let cookie = try #require(
            HTTPCookie(properties: [.name: "sid", .value: "by-hand", .domain: "h", .path: "/", .originURL: testURL("https://h/")]))
        configuration.httpCookieStorage?.setCookie(cookie)
        _ = try await session.data(for: URLRequest(url: testURL("https://h/me")))
        #expect(stubs.requests.map { $0.headers["Cookie"] } == [nil, "sid=by-hand"])
    }

    /// A session made without a configuration (or with the default one) starts with no
    /// cookies, and skips the cookie lookup while none can be there: the first `Set-Cookie`
    /// ends that, and the next request carries the cookie.
    @Test func aCookieSetByTheFirstAnswerIsSentWithTheSecondRequestOfASessionWithoutAConfiguration() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/login").respond(.status(204, headers: ["Set-Cookie": "sid=first; Path=/"]))
        stubs.stub(.get, "/me").respond(.text("ada"))
        let session = MockURLSession(stubs: stubs)
        _ = try await session.data(for: URLRequest(url: testURL("https://h/login")))
        _ = try await session.data(for: URLRequest(url: testURL("https://h/me")))
        #expect(stubs.requests.map { $0.headers["Cookie"] } == [nil, "sid=first"])
    }

    @Test func aCookieSetByTheFirstAnswerIsSentWithTheSecondRequestOfADefaultURLSession() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/login").respond(.status(204, headers: ["Set-Cookie": "sid=first; Path=/"]))
        stubs.stub(.get, "/me").respond(.text("ada"))
        let session = stubs.makeURLSession()
        _ = try await session.data(for: URLRequest(url: testURL("https://h/login")))
        _ = try await session.data(for: URLRequest(url: testURL("https://h/me")))
        #expect(stubs.requests.map { $0.headers["Cookie"] } == [nil, "sid=first"])
    }

    /// The jar of a session made without a configuration is skipped only until the test has
    /// seen it: a cookie put there by hand after a request goes with the next.
    @Test func aCookiePutByHandInTheOwnJarOfAMockSessionIsSentWithTheNextRequest() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/me").respond(.text("ada"))
        let session = MockURLSession(stubs: stubs)
        _ = try await session.data(for: URLRequest(url: testURL("https://h/me")))
        let cookie = try #require(
            HTTPCookie(properties: [.name: "sid", .value: "by-hand", .domain: "h", .path: "/", .originURL: testURL("https://h/")]))
        session.cookieStorage?.setCookie(cookie)
        _ = try await session.data(for: URLRequest(url: testURL("https://h/me")))
        #expect(stubs.requests.map { $0.headers["Cookie"] } == [nil, "sid=by-hand"])
    }

    @Test(arguments: StubTransport.allCases)
    func aRequestsOwnCookieHeaderIsSentInsteadOfTheStoredCookies(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/me").respond(.text("ada"))
        let configuration = URLSessionConfiguration.ephemeral
        let cookie = try #require(
            HTTPCookie(properties: [.name: "sid", .value: "stored", .domain: "h", .path: "/", .originURL: testURL("https://h/")]))
        configuration.httpCookieStorage?.setCookie(cookie)
        var request = URLRequest(url: testURL("https://h/me"))
        request.setValue("mine=1", forHTTPHeaderField: "Cookie")
        _ = try await transport.session(stubs, configuration: configuration).data(for: request)
        #expect(stubs.requests.map { $0.headers["Cookie"] } == ["mine=1"])
    }

    /// The accept policy decides what is stored, not what is sent: a session that accepts no
    /// cookies still sends those already in its storage, so the cookie step cannot be skipped
    /// for it.
    @Test(arguments: StubTransport.allCases)
    func aSessionThatAcceptsNoCookiesStillSendsTheStoredOnes(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/me").respond(.text("ada"))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieAcceptPolicy = .never
        let session = transport.session(stubs, configuration: configuration)
        let cookie = try #require(
            HTTPCookie(properties: [.name: "sid", .value: "by-hand", .domain: "h", .path: "/", .originURL: testURL("https://h/")]))
        configuration.httpCookieStorage?.setCookie(cookie)
        _ = try await session.data(for: URLRequest(url: testURL("https://h/me")))
        #expect(stubs.requests.map { $0.headers["Cookie"] } == ["sid=by-hand"])
    }

    @Test func everyCookieOfAResponseIsStored() async throws {
        let stubs = StubRegistry()
        var headers: HTTPHeaders = [:]
        headers.add(name: "Set-Cookie", value: "a=1; Path=/; Expires=Wed, 21 Oct 2065 07:28:00 GMT")
        headers.add(name: "Set-Cookie", value: "b=2; Path=/")
        stubs.stub(.get, "/").respond(.status(200, headers: headers))
        let session = MockURLSession(stubs: stubs)
        _ = try await session.data(for: URLRequest(url: testURL("https://h/")))
        #expect(session.cookieStorage?.cookies(for: testURL("https://h/"))?.map(\.name).sorted() == ["a", "b"])
    }

    @Test(arguments: StubTransport.allCases)
    func aSessionThatAcceptsNoCookiesStoresNone(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/").respond(.status(200, headers: ["Set-Cookie": "sid=1"]))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieAcceptPolicy = .never
        _ = try await transport.session(stubs, configuration: configuration).data(for: URLRequest(url: testURL("https://h/")))
        #expect(configuration.httpCookieStorage?.cookies?.isEmpty == true)
    }

    @Test func aCookieSetDuringARedirectReachesTheNextHop() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/sso").respond(.status(302, headers: ["Location": "/home", "Set-Cookie": "sid=9; Path=/"]))
        let home = stubs.stub(.get, "/home").matching(.header("Cookie", "sid=9")).respond(.text("home"))
        _ = try await MockURLSession(stubs: stubs).data(for: URLRequest(url: testURL("https://h/sso")))
        #expect(home.callCount == 1)
    }

    @Test func anAnswerLaterThanTheRequestsTimeoutFailsWithTimedOut() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/slow").respond(.text("late").delayed(by: 120))
        var request = URLRequest(url: testURL("https://h/slow"))
        request.timeoutInterval = 30
        // Without simulated latency the failure comes at once; what matters is that it comes.
        let error = await #expect(throws: URLError.self) { try await MockURLSession(stubs: stubs).data(for: request) }
        #expect(error?.code == .timedOut)
    }

    @Test func theConfigurationsTimeoutAppliesWhenItIsShorter() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/slow").respond(.text("late").delayed(by: 20))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        let session = MockURLSession(stubs: stubs, configuration: configuration)
        let error = await #expect(throws: URLError.self) { try await session.data(for: URLRequest(url: testURL("https://h/slow"))) }
        #expect(error?.code == .timedOut)
    }

    @Test func anAnswerWithinTheTimeoutArrives() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/ok").respond(.text("ok").delayed(by: 5))
        let (data, _) = try await MockURLSession(stubs: stubs).data(for: URLRequest(url: testURL("https://h/ok")))
        #expect(data == Data("ok".utf8))
    }

    /// Through a real URLSession the failure comes at the timeout (whole seconds: corelibs
    /// truncates timeouts), not when the late answer would have come. The bound is far from
    /// both so a loaded machine cannot fail it: a stalled run once took 39 s for this test.
    @Test func theURLProtocolTransportTimesOutAtTheTimeout() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/slow").respond(.text("late").delayed(by: 600))
        var request = URLRequest(url: testURL("https://h/slow"))
        request.timeoutInterval = 1
        let started = ContinuousClock.now
        let error = await #expect(throws: URLError.self) { try await stubs.makeURLSession().data(for: request, delegate: nil) }
        #expect(error?.code == .timedOut)
        #expect(ContinuousClock.now - started < .seconds(300))
    }
}
