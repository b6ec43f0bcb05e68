import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// Where a transport keeps no cookies (documented), nothing is stored and a request carries only
/// the `Cookie` header it was given: each test expects that there.
@Suite("Cookies and timeouts, as a real session has them")
struct CookieAndTimeoutTests {
    @Test(arguments: Transport.allCases)
    func aCookieSetByAStubIsStoredAndSentBack(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.post, "/login").respond(.status(204, headers: ["Set-Cookie": "sid=abc123; Path=/; HttpOnly"]))
        let me = stubs.stub(.get, "/me").respond(.text("ada"))
        let configuration = URLSessionConfiguration.ephemeral
        let session = try transport.session(stubs, configuration: configuration)
        var login = URLRequest(url: testURL("https://h/login"))
        login.httpMethod = "POST"
        let (_, loggedIn) = try await session.data(for: login)
        let (data, _) = try await session.data(for: URLRequest(url: testURL("https://h/me")))
        #expect(data == Data("ada".utf8))
        let keeps = !transport.differs(in: .cookies)
        #expect(me.calls.map { $0.headers["Cookie"] } == [keeps ? "sid=abc123" : nil])
        #expect(configuration.httpCookieStorage?.cookies(for: testURL("https://h/me"))?.map(\.name) == (keeps ? ["sid"] : []))
        #expect((loggedIn as? HTTPURLResponse)?.value(forHTTPHeaderField: "Set-Cookie") == "sid=abc123; Path=/; HttpOnly")
    }

    /// The storage is asked on every request that may carry cookies: one that was empty when
    /// the session was made, and for its first request, can be filled by hand at any time.
    @Test(arguments: Transport.allCases)
    func aCookiePutInTheStorageByHandAfterARequestIsSentWithTheNext(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/me").respond(.text("ada"))
        let configuration = URLSessionConfiguration.ephemeral
        let session = try transport.session(stubs, configuration: configuration)
        _ = try await session.data(for: URLRequest(url: testURL("https://h/me")))
        let cookie = try #require(
            HTTPCookie(properties: [.name: "sid", .value: "by-hand", .domain: "h", .path: "/", .originURL: testURL("https://h/")]))
        configuration.httpCookieStorage?.setCookie(cookie)
        _ = try await session.data(for: URLRequest(url: testURL("https://h/me")))
        #expect(stubs.requests.map { $0.headers["Cookie"] } == [nil, transport.differs(in: .cookies) ? nil : "sid=by-hand"])
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

    @Test(arguments: Transport.allCases)
    func aRequestsOwnCookieHeaderIsSentInsteadOfTheStoredCookies(_ transport: Transport) async throws {
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
    @Test(arguments: Transport.allCases)
    func aSessionThatAcceptsNoCookiesStillSendsTheStoredOnes(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/me").respond(.text("ada"))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieAcceptPolicy = .never
        let session = try transport.session(stubs, configuration: configuration)
        let cookie = try #require(
            HTTPCookie(properties: [.name: "sid", .value: "by-hand", .domain: "h", .path: "/", .originURL: testURL("https://h/")]))
        configuration.httpCookieStorage?.setCookie(cookie)
        _ = try await session.data(for: URLRequest(url: testURL("https://h/me")))
        #expect(stubs.requests.map { $0.headers["Cookie"] } == [transport.differs(in: .cookies) ? nil : "sid=by-hand"])
    }

    @Test(arguments: Transport.allCases)
    func everyCookieOfAResponseIsStored(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        var headers: HTTPHeaders = [:]
        headers.add(name: "Set-Cookie", value: "a=1; Path=/; Expires=Wed, 21 Oct 2065 07:28:00 GMT")
        headers.add(name: "Set-Cookie", value: "b=2; Path=/")
        stubs.stub(.get, "/").respond(.status(200, headers: headers))
        let configuration = URLSessionConfiguration.ephemeral
        _ = try await transport.session(stubs, configuration: configuration).data(for: URLRequest(url: testURL("https://h/")))
        let stored = configuration.httpCookieStorage?.cookies(for: testURL("https://h/"))?.map(\.name).sorted()
        #expect(stored == (transport.differs(in: .cookies) ? [] : ["a", "b"]))
    }

    @Test(arguments: Transport.allCases)
    func aSessionThatAcceptsNoCookiesStoresNone(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/").respond(.status(200, headers: ["Set-Cookie": "sid=1"]))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieAcceptPolicy = .never
        _ = try await transport.session(stubs, configuration: configuration).data(for: URLRequest(url: testURL("https://h/")))
        #expect(configuration.httpCookieStorage?.cookies?.isEmpty == true)
    }

    @Test(arguments: Transport.allCases)
    func aCookieSetDuringARedirectReachesTheNextHop(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/sso").respond(.status(302, headers: ["Location": "/home", "Set-Cookie": "sid=9; Path=/"]))
        let home = stubs.stub(.get, "/home").respond(.text("home")).allowingUnused()
        let (_, response) = try await transport.session(stubs).data(for: URLRequest(url: testURL("https://h/sso")))
        if transport.differs(in: .redirects) {
            #expect(response.status == 302)
            #expect(home.callCount == 0)
        } else {
            #expect(home.calls.map { $0.headers["Cookie"] } == ["sid=9"])
        }
    }

    // MARK: Timeouts

    // Whole seconds: corelibs truncates a real session's timeout (see `documentedDifferences`).
    // A late answer comes long after the timeout, so a loaded machine cannot mistake one for the
    // other: a stalled run once took 39 s for a test like these.

    /// A `MockURLSession` that does not simulate latency fails at once; the others at the timeout,
    /// not when the late answer would have come.
    @Test(arguments: Transport.allCases)
    func anAnswerLaterThanTheRequestsTimeoutFailsWithTimedOut(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/slow").respond(.text("late").delayed(by: 600))
        var request = URLRequest(url: testURL("https://h/slow"))
        request.timeoutInterval = 1
        let session = try transport.session(stubs)
        let started = ContinuousClock.now
        let error = await #expect(throws: URLError.self) { try await session.data(for: request) }
        #expect(error?.code == .timedOut)
        #expect(ContinuousClock.now - started < .seconds(300))
    }

    @Test(arguments: Transport.allCases)
    func theConfigurationsTimeoutAppliesWhenItIsShorter(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/slow").respond(.text("late").delayed(by: 600))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 1
        let session = try transport.session(stubs, configuration: configuration)
        let error = await #expect(throws: URLError.self) { try await session.data(for: URLRequest(url: testURL("https://h/slow"))) }
        #expect(error?.code == .timedOut)
    }

    @Test(arguments: Transport.allCases)
    func anAnswerWithinTheTimeoutArrives(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/ok").respond(.text("ok").delayed(by: 0.1))
        let (data, _) = try await transport.session(stubs, simulatesLatency: true).data(for: URLRequest(url: testURL("https://h/ok")))
        #expect(data == Data("ok".utf8))
    }

    /// Where a timeout is kept to whole seconds (documented), one under a second fails at once.
    @Test(arguments: Transport.allCases)
    func aTimeoutUnderASecondKeepsItsFraction(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/ok").respond(.text("ok").delayed(by: 0.3))
        var request = URLRequest(url: testURL("https://h/ok"))
        request.timeoutInterval = 0.9
        let session = try transport.session(stubs, simulatesLatency: true)
        if transport.differs(in: .subSecondTimeouts) {
            let error = await #expect(throws: URLError.self) { try await session.data(for: request) }
            #expect(error?.code == .timedOut)
        } else {
            #expect(try await session.data(for: request).0 == Data("ok".utf8))
        }
    }

    // MARK: A cookie from an answer given at once, through a real URLSession

    @Test func aCookieFromAnImmediateAnswerIsSentOnTheNextRequestThroughTheRealSession() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/login").respond(.status(200, headers: ["Set-Cookie": "session=abc; Path=/"]))
        stubs.stub(.get, "/me").respond(.text("me"))
        let session = stubs.makeURLSession()
        _ = try await session.data(from: testURL("https://h.example/login"))
        _ = try await session.data(from: testURL("https://h.example/me"))
        #expect(stubs.requests.last?.headers["Cookie"] == "session=abc")
    }

    @Test func aCookieFromAnImmediateAnswerIsSentOnARequestMadeFromItsCompletionHandler() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/login").respond(.status(200, headers: ["Set-Cookie": "session=abc; Path=/"]))
        stubs.stub(.get, "/me").respond(.text("me"))
        let session = stubs.makeURLSession()
        let recorder = OutcomeRecorder()
        session.dataTask(with: testURL("https://h.example/login")) { _, _, _ in
            session.dataTask(with: testURL("https://h.example/me")) { data, _, error in
                recorder.record(0, OutcomeRecorder.outcome(data, error))
            }
            .resume()
        }.resume()
        try await recorder.waitUntil(count: 1)
        #expect(stubs.requests.last?.headers["Cookie"] == "session=abc")
    }

    @Test func aCookieFromAnImmediateRedirectIsSentOnTheRedirectedRequest() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/login").respond(.status(302, headers: ["Set-Cookie": "session=abc; Path=/", "Location": "/me"]))
        stubs.stub(.get, "/me").respond(.text("me"))
        let session = stubs.makeURLSession()
        let (data, _) = try await session.data(from: testURL("https://h.example/login"))
        #expect(String(decoding: data, as: UTF8.self) == "me")
        #expect(stubs.requests.last?.headers["Cookie"] == "session=abc")
    }
}
