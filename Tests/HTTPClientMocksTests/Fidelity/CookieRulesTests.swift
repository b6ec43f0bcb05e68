import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// RFC 6265 as Apple's `HTTPCookieStorage` applies it, on both transports: a cookie is set by
/// one stubbed answer, and the next request shows what the session sends.
@Suite("Cookie rules (RFC 6265)")
struct CookieRulesTests {
    /// A session whose answers under `path` set `setCookies`, and the others nothing.
    struct Jar {
        let stubs = StubRegistry()
        let configuration = URLSessionConfiguration.ephemeral
        let session: any URLSessionProtocol

        init(_ transport: StubTransport, setting setCookies: [String], at path: String = "/set") {
            var headers: HTTPHeaders = [:]
            for line in setCookies { headers.add(name: "Set-Cookie", value: line) }
            stubs.stub(.get, .prefix("/")).respond(.status(204)).allowingUnused()
            stubs.stub(.get, .prefix(path)).respond(.status(204, headers: headers))
            session = transport.session(stubs, configuration: configuration)
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
    }

    @Test(arguments: StubTransport.allCases)
    func aSecureCookieIsNotSentOverHTTP(_ transport: StubTransport) async throws {
        let jar = Jar(transport, setting: ["sid=1; Path=/; Secure"])
        try await jar.set(from: "https://h.example/set")
        #expect(try await jar.cookieHeader(for: "https://h.example/a") == "sid=1")
        #expect(try await jar.cookieHeader(for: "http://h.example/a") == nil)
    }

    @Test(arguments: StubTransport.allCases)
    func aSecureCookieSentOverHTTPIsNotStored(_ transport: StubTransport) async throws {
        let jar = Jar(transport, setting: ["sid=1; Path=/; Secure"])
        try await jar.set(from: "http://h.example/set")
        #expect(jar.stored.isEmpty)
    }

    @Test(arguments: StubTransport.allCases)
    func aCookieIsSentOnlyUnderItsPath(_ transport: StubTransport) async throws {
        let jar = Jar(transport, setting: ["sid=1; Path=/account"])
        try await jar.set(from: "https://h.example/set")
        #expect(try await jar.cookieHeader(for: "https://h.example/account") == "sid=1")
        #expect(try await jar.cookieHeader(for: "https://h.example/account/orders") == "sid=1")
        #expect(try await jar.cookieHeader(for: "https://h.example/accounts") == nil)
        #expect(try await jar.cookieHeader(for: "https://h.example/") == nil)
    }

    @Test(arguments: StubTransport.allCases)
    func aCookieWithoutPathBelongsToTheDirectoryOfTheRequest(_ transport: StubTransport) async throws {
        let jar = Jar(transport, setting: ["sid=1"], at: "/app/set")
        try await jar.set(from: "https://h.example/app/set")
        #expect(jar.stored.map(\.path) == ["/app"])
        #expect(try await jar.cookieHeader(for: "https://h.example/app/x") == "sid=1")
        #expect(try await jar.cookieHeader(for: "https://h.example/other") == nil)
    }

    @Test(arguments: StubTransport.allCases, ["sid=x; Path=/; Max-Age=0", "sid=x; Path=/; Max-Age=-1"])
    func aMaxAgeOfZeroOrLessDeletesTheCookie(_ transport: StubTransport, deletion: String) async throws {
        let jar = Jar(transport, setting: [deletion], at: "/set/delete")
        jar.stubs.stub(.get, "/set/first").respond(.status(204, headers: ["Set-Cookie": "sid=1; Path=/"]))
        try await jar.set(from: "https://h.example/set/first")
        #expect(jar.stored.map(\.name) == ["sid"])
        try await jar.set(from: "https://h.example/set/delete")
        #expect(jar.stored.isEmpty)
        #expect(try await jar.cookieHeader(for: "https://h.example/a") == nil)
    }

    @Test(arguments: StubTransport.allCases)
    func anExpiresInThePastDeletesTheCookie(_ transport: StubTransport) async throws {
        let jar = Jar(transport, setting: ["sid=x; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT"], at: "/set/delete")
        jar.stubs.stub(.get, "/set/first").respond(.status(204, headers: ["Set-Cookie": "sid=1; Path=/"]))
        try await jar.set(from: "https://h.example/set/first")
        try await jar.set(from: "https://h.example/set/delete")
        #expect(jar.stored.isEmpty)
    }

    @Test(arguments: StubTransport.allCases, ["com", ".com", "co.uk", "github.io"])
    func aCookieForAPublicSuffixIsRefused(_ transport: StubTransport, suffix: String) async throws {
        let jar = Jar(transport, setting: ["sid=1; Path=/; Domain=\(suffix)"])
        let host = "shop.example.\(suffix.hasPrefix(".") ? String(suffix.dropFirst()) : suffix)"
        try await jar.set(from: "https://\(host)/set")
        #expect(jar.stored.isEmpty)
        #expect(try await jar.cookieHeader(for: "https://other.\(suffix.hasPrefix(".") ? String(suffix.dropFirst()) : suffix)/") == nil)
    }

    /// Found by the `cookies` fuzz target: the host-only cookie of `.co.uk` read as a domain
    /// cookie for every host under co.uk.
    @Test func aHostWithAnEmptyLabelSetsNoCookie() async throws {
        let jar = Jar(.mockSession, setting: ["sid=1; Path=/"])
        try await jar.set(from: "https://.co.uk/set")
        #expect(jar.stored.isEmpty)
        #expect(try await jar.cookieHeader(for: "https://shop.co.uk/") == nil)
    }

    @Test(arguments: StubTransport.allCases)
    func aCookieForADomainThatIsNotTheHostsIsRefused(_ transport: StubTransport) async throws {
        let jar = Jar(transport, setting: ["sid=1; Path=/; Domain=elsewhere.example"])
        try await jar.set(from: "https://h.example/set")
        #expect(jar.stored.isEmpty)
    }

    @Test(arguments: StubTransport.allCases)
    func aDomainCookieReachesSubdomains(_ transport: StubTransport) async throws {
        let jar = Jar(transport, setting: ["sid=1; Path=/; Domain=example.org"])
        try await jar.set(from: "https://www.example.org/set")
        #expect(try await jar.cookieHeader(for: "https://api.example.org/") == "sid=1")
        #expect(try await jar.cookieHeader(for: "https://example.org/") == "sid=1")
        #expect(try await jar.cookieHeader(for: "https://badexample.org/") == nil)
    }

    @Test(arguments: StubTransport.allCases)
    func aCookieWithoutDomainStaysWithItsHost(_ transport: StubTransport) async throws {
        let jar = Jar(transport, setting: ["sid=1; Path=/"])
        try await jar.set(from: "https://www.example.org/set")
        #expect(try await jar.cookieHeader(for: "https://www.example.org/") == "sid=1")
        #expect(try await jar.cookieHeader(for: "https://api.www.example.org/") == nil)
    }

    @Test(arguments: StubTransport.allCases)
    func aCookieLargerThan4096BytesIsRefused(_ transport: StubTransport) async throws {
        let jar = Jar(transport, setting: ["big=" + String(repeating: "x", count: 1 << 20) + "; Path=/", "small=1; Path=/"])
        try await jar.set(from: "https://h.example/set")
        #expect(jar.stored.map(\.name) == ["small"])
    }

    @Test(arguments: StubTransport.allCases)
    func noMoreThanFiftyCookiesAreKeptForADomain(_ transport: StubTransport) async throws {
        let jar = Jar(transport, setting: (0..<60).map { "c\($0)=1; Path=/" })
        try await jar.set(from: "https://h.example/set")
        #expect(jar.stored.count == 50)
        #expect(!jar.stored.contains { $0.name == "c55" })
    }

    @Test(arguments: StubTransport.allCases)
    func anHttpOnlyCookieIsKeptAndSent(_ transport: StubTransport) async throws {
        let jar = Jar(transport, setting: ["sid=1; Path=/; HttpOnly"])
        try await jar.set(from: "https://h.example/set")
        #expect(jar.stored.first?.isHTTPOnly == true)
        #expect(try await jar.cookieHeader(for: "https://h.example/") == "sid=1")
    }

    @Test(arguments: StubTransport.allCases)
    func theCookieWithTheLongerPathComesFirst(_ transport: StubTransport) async throws {
        let jar = Jar(transport, setting: ["a=1; Path=/", "b=2; Path=/docs"])
        try await jar.set(from: "https://h.example/set")
        #expect(try await jar.cookieHeader(for: "https://h.example/docs/1") == "b=2; a=1")
    }

    @Test(arguments: StubTransport.allCases)
    func aRequestsOwnCookieHeaderIsSentAsItIs(_ transport: StubTransport) async throws {
        let jar = Jar(transport, setting: ["sid=1; Path=/"])
        try await jar.set(from: "https://h.example/set")
        _ = try await jar.session.data(for: request("GET", "https://h.example/a", headers: ["Cookie": "mine=2"]))
        #expect(jar.stubs.requests.last?.headers["Cookie"] == "mine=2")
    }

    @Test(arguments: StubTransport.allCases)
    func aConfigurationThatSendsNoCookiesStillSendsNone(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/set").respond(.status(204, headers: ["Set-Cookie": "sid=1; Path=/"]))
        stubs.stub(.get, "/a").respond(.status(204))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        let session = transport.session(stubs, configuration: configuration)
        _ = try await session.data(for: URLRequest(url: testURL("https://h.example/set")))
        _ = try await session.data(for: URLRequest(url: testURL("https://h.example/a")))
        #expect(configuration.httpCookieStorage?.cookies?.map(\.name) == ["sid"])
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
