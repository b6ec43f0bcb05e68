import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// RFC 6265 as Apple's `HTTPCookieStorage` applies it, on every transport that keeps cookies: a
/// cookie is set by one stubbed answer, and the next request shows what the session sends. Where
/// cookies are not kept (documented), nothing is stored and nothing is sent: ``Jar/sent(_:)`` and ``Jar/kept(_:)`` say what each test expects there.
@Suite("Cookie rules (RFC 6265)")
struct CookieRulesTests {
    /// A session whose answers under `path` set `setCookies`, and the others nothing.
    struct Jar {
        let stubs = StubRegistry()
        let configuration = URLSessionConfiguration.ephemeral
        let session: any URLSessionProtocol
        let keepsCookies: Bool

        init(_ transport: Transport, setting setCookies: [String], at path: String = "/set") throws {
            var headers: HTTPHeaders = [:]
            for line in setCookies { headers.add(name: "Set-Cookie", value: line) }
            stubs.stub(.get, .prefix("/")).respond(.status(204)).allowingUnused()
            stubs.stub(.get, .prefix(path)).respond(.status(204, headers: headers))
            session = try transport.session(stubs, configuration: configuration)
            keepsCookies = !transport.differs(in: .cookies)
        }

        /// Asks `url` to set the cookies.
        func set(from url: String) async throws {
            _ = try await session.data(for: URLRequest(url: testURL(url)))
        }

        /// The `Cookie` header a request to `url` carries.
        func cookieHeader(for url: String) async throws -> String? {
            _ = try await session.data(for: URLRequest(url: testURL(url)))
            return stubs.requests.last?.headers["Cookie"]
        }

        var stored: [HTTPCookie] { configuration.httpCookieStorage?.cookies ?? [] }

        /// `header` where cookies are kept; nil where none are.
        func sent(_ header: String) -> String? { keepsCookies ? header : nil }

        /// `names` where cookies are kept; none where none are.
        func kept(_ names: [String]) -> [String] { keepsCookies ? names : [] }
    }

    @Test(arguments: Transport.allCases)
    func aSecureCookieIsNotSentOverHTTP(_ transport: Transport) async throws {
        let jar = try Jar(transport, setting: ["sid=1; Path=/; Secure"])
        try await jar.set(from: "https://h.example/set")
        #expect(try await jar.cookieHeader(for: "https://h.example/a") == jar.sent("sid=1"))
        #expect(try await jar.cookieHeader(for: "http://h.example/a") == nil)
    }

    @Test(arguments: Transport.allCases)
    func aSecureCookieSentOverHTTPIsNotStored(_ transport: Transport) async throws {
        let jar = try Jar(transport, setting: ["sid=1; Path=/; Secure"])
        try await jar.set(from: "http://h.example/set")
        #expect(jar.stored.isEmpty)
    }

    @Test(arguments: Transport.allCases)
    func aCookieIsSentOnlyUnderItsPath(_ transport: Transport) async throws {
        let jar = try Jar(transport, setting: ["sid=1; Path=/account"])
        try await jar.set(from: "https://h.example/set")
        #expect(try await jar.cookieHeader(for: "https://h.example/account") == jar.sent("sid=1"))
        #expect(try await jar.cookieHeader(for: "https://h.example/account/orders") == jar.sent("sid=1"))
        #expect(try await jar.cookieHeader(for: "https://h.example/accounts") == nil)
        #expect(try await jar.cookieHeader(for: "https://h.example/") == nil)
    }

    @Test(arguments: Transport.allCases)
    func aCookieWithoutPathBelongsToTheDirectoryOfTheRequest(_ transport: Transport) async throws {
        let jar = try Jar(transport, setting: ["sid=1"], at: "/app/set")
        try await jar.set(from: "https://h.example/app/set")
        #expect(jar.stored.map(\.path) == jar.kept(["/app"]))
        #expect(try await jar.cookieHeader(for: "https://h.example/app/x") == jar.sent("sid=1"))
        #expect(try await jar.cookieHeader(for: "https://h.example/other") == nil)
    }

    @Test(arguments: Transport.allCases, ["sid=x; Path=/; Max-Age=0", "sid=x; Path=/; Max-Age=-1"])
    func aMaxAgeOfZeroOrLessDeletesTheCookie(_ transport: Transport, deletion: String) async throws {
        let jar = try Jar(transport, setting: [deletion], at: "/set/delete")
        jar.stubs.stub(.get, "/set/first").respond(.status(204, headers: ["Set-Cookie": "sid=1; Path=/"]))
        try await jar.set(from: "https://h.example/set/first")
        #expect(jar.stored.map(\.name) == jar.kept(["sid"]))
        try await jar.set(from: "https://h.example/set/delete")
        #expect(jar.stored.isEmpty)
        #expect(try await jar.cookieHeader(for: "https://h.example/a") == nil)
    }

    @Test(arguments: Transport.allCases)
    func anExpiresInThePastDeletesTheCookie(_ transport: Transport) async throws {
        let jar = try Jar(transport, setting: ["sid=x; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT"], at: "/set/delete")
        jar.stubs.stub(.get, "/set/first").respond(.status(204, headers: ["Set-Cookie": "sid=1; Path=/"]))
        try await jar.set(from: "https://h.example/set/first")
        try await jar.set(from: "https://h.example/set/delete")
        #expect(jar.stored.isEmpty)
    }

    @Test(arguments: Transport.allCases, ["com", ".com", "co.uk", "github.io"])
    func aCookieForAPublicSuffixIsRefused(_ transport: Transport, suffix: String) async throws {
        let jar = try Jar(transport, setting: ["sid=1; Path=/; Domain=\(suffix)"])
        let host = "shop.example.\(suffix.hasPrefix(".") ? String(suffix.dropFirst()) : suffix)"
        try await jar.set(from: "https://\(host)/set")
        #expect(jar.stored.isEmpty)
        #expect(try await jar.cookieHeader(for: "https://other.\(suffix.hasPrefix(".") ? String(suffix.dropFirst()) : suffix)/") == nil)
    }

    /// Found by the `cookies` fuzz target: the host-only cookie of `.co.uk` read as a domain
    /// cookie for every host under co.uk.
    @Test func aHostWithAnEmptyLabelSetsNoCookie() async throws {
        let jar = try Jar(.mockSession, setting: ["sid=1; Path=/"])
        try await jar.set(from: "https://.co.uk/set")
        #expect(jar.stored.isEmpty)
        #expect(try await jar.cookieHeader(for: "https://shop.co.uk/") == nil)
    }

    @Test(arguments: Transport.allCases)
    func aCookieForADomainThatIsNotTheHostsIsRefused(_ transport: Transport) async throws {
        let jar = try Jar(transport, setting: ["sid=1; Path=/; Domain=elsewhere.example"])
        try await jar.set(from: "https://h.example/set")
        #expect(jar.stored.isEmpty)
    }

    @Test(arguments: Transport.allCases)
    func aDomainCookieReachesSubdomains(_ transport: Transport) async throws {
        let jar = try Jar(transport, setting: ["sid=1; Path=/; Domain=example.org"])
        try await jar.set(from: "https://www.example.org/set")
        #expect(try await jar.cookieHeader(for: "https://api.example.org/") == jar.sent("sid=1"))
        #expect(try await jar.cookieHeader(for: "https://example.org/") == jar.sent("sid=1"))
        #expect(try await jar.cookieHeader(for: "https://badexample.org/") == nil)
    }

    @Test(arguments: Transport.allCases)
    func aCookieWithoutDomainStaysWithItsHost(_ transport: Transport) async throws {
        let jar = try Jar(transport, setting: ["sid=1; Path=/"])
        try await jar.set(from: "https://www.example.org/set")
        #expect(try await jar.cookieHeader(for: "https://www.example.org/") == jar.sent("sid=1"))
        #expect(try await jar.cookieHeader(for: "https://api.www.example.org/") == nil)
    }

    @Test(arguments: Transport.allCases)
    func aCookieLargerThan4096BytesIsRefused(_ transport: Transport) async throws {
        // Within what a client reads in one header line (libcurl's limit is 100 KB).
        let jar = try Jar(transport, setting: ["big=" + String(repeating: "x", count: 5_000) + "; Path=/", "small=1; Path=/"])
        try await jar.set(from: "https://h.example/set")
        #expect(jar.stored.map(\.name) == jar.kept(["small"]))
    }

    @Test(arguments: Transport.allCases)
    func noMoreThanFiftyCookiesAreKeptForADomain(_ transport: Transport) async throws {
        let jar = try Jar(transport, setting: (0..<60).map { "c\($0)=1; Path=/" })
        try await jar.set(from: "https://h.example/set")
        #expect(jar.stored.count == (jar.keepsCookies ? 50 : 0))
        #expect(!jar.stored.contains { $0.name == "c55" })
    }

    @Test(arguments: Transport.allCases)
    func anHttpOnlyCookieIsKeptAndSent(_ transport: Transport) async throws {
        let jar = try Jar(transport, setting: ["sid=1; Path=/; HttpOnly"])
        try await jar.set(from: "https://h.example/set")
        #expect(jar.stored.map(\.isHTTPOnly) == (jar.keepsCookies ? [true] : []))
        #expect(try await jar.cookieHeader(for: "https://h.example/") == jar.sent("sid=1"))
    }

    @Test(arguments: Transport.allCases)
    func theCookieWithTheLongerPathComesFirst(_ transport: Transport) async throws {
        let jar = try Jar(transport, setting: ["a=1; Path=/", "b=2; Path=/docs"])
        try await jar.set(from: "https://h.example/set")
        #expect(try await jar.cookieHeader(for: "https://h.example/docs/1") == jar.sent("b=2; a=1"))
    }

    @Test(arguments: Transport.allCases)
    func aRequestsOwnCookieHeaderIsSentAsItIs(_ transport: Transport) async throws {
        let jar = try Jar(transport, setting: ["sid=1; Path=/"])
        try await jar.set(from: "https://h.example/set")
        _ = try await jar.session.data(for: request("GET", "https://h.example/a", headers: ["Cookie": "mine=2"]))
        #expect(jar.stubs.requests.last?.headers["Cookie"] == "mine=2")
    }

    @Test(arguments: Transport.allCases)
    func aConfigurationThatSendsNoCookiesStillSendsNone(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/set").respond(.status(204, headers: ["Set-Cookie": "sid=1; Path=/"]))
        stubs.stub(.get, "/a").respond(.status(204))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        let session = try transport.session(stubs, configuration: configuration)
        _ = try await session.data(for: URLRequest(url: testURL("https://h.example/set")))
        _ = try await session.data(for: URLRequest(url: testURL("https://h.example/a")))
        #expect(configuration.httpCookieStorage?.cookies?.map(\.name) == (transport.differs(in: .cookies) ? [] : ["sid"]))
        #expect(stubs.requests.last?.headers["Cookie"] == nil)
    }

    @Test func aConfigurationInstalledTwiceStillSendsCookies() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/set").respond(.status(204, headers: ["Set-Cookie": "sid=1; Path=/"]))
        stubs.stub(.get, "/a").respond(.status(204))
        let configuration = URLSessionConfiguration.ephemeral
        stubs.install(in: configuration)
        let session = stubs.makeURLSession(configuration: configuration)
        _ = try await session.data(for: URLRequest(url: testURL("https://h.example/set")))
        _ = try await session.data(for: URLRequest(url: testURL("https://h.example/a")))
        #expect(stubs.requests.last?.headers["Cookie"] == "sid=1")
    }
}
