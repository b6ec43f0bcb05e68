import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient

/// The standard name rules and a URL's user info, tried in every place a value can travel in.
/// Each case is a way a credential could slip through: hostile input, or a careless echo server.
@Suite("Redaction")
struct RedactionTests {
    // MARK: User info in URLs

    @Test(
        "the password of a URL's user info is hidden, the user name kept",
        arguments: [
            ("http://alice:pa55word@h/a?page=2", "http://alice:REDACTED@h/a?page=2"),
            ("https://alice:p%40ss%3Aw0rd@h:8443/", "https://alice:REDACTED@h:8443/"),
            ("http://alice:pa55word@[::1]:8080/x", "http://alice:REDACTED@[::1]:8080/x"),
            ("http://a@b:pa55@h/x", "http://a@b:REDACTED@h/x"),
            ("http://alice:@h/", "http://alice:REDACTED@h/"),
            ("http://alice:it's(ok)@h/", "http://alice:REDACTED@h/"),
        ])
    func userInfoPassword(url: String, expected: String) {
        #expect(Redaction.standard.redacted(url: url) == expected)
    }

    @Test func aUserInfoWithoutAPasswordIsHiddenWhole() {
        // https://TOKEN@host is how tokens travel in Git remotes and CI variables.
        #expect(Redaction.standard.redacted(url: "https://ghp_abc123@h/repo") == "https://REDACTED@h/repo")
    }

    @Test func anAtSignOutsideTheAuthorityIsNoUserInfo() {
        for url in ["https://h/users/me@example.com", "https://h/a?email=me@example.com", "https://h/#me@x"] {
            #expect(Redaction.standard.redacted(url: url) == url)
        }
    }

    @Test func userInfoIsHiddenInEveryURLOfAText() {
        let text = "GET http://alice:pa55word@h/a failed; retried \"https://bob:s3cret@h/b\" (ftp://carol:c4rol@files/c)"
        let redacted = Redaction.standard.redacted(text: text)
        #expect(
            redacted == "GET http://alice:REDACTED@h/a failed; retried \"https://bob:REDACTED@h/b\" (ftp://carol:REDACTED@files/c)")
        #expect(Redaction.standard.redacted(text: redacted) == redacted)
    }

    @Test func aURLRightAfterAnotherAuthorityStillHasItsPasswordHidden() {
        #expect(Redaction.standard.redacted(text: "x://a@http://alice:pa55word@h/") == "x://REDACTED@http://alice:REDACTED@h/")
    }

    @Test func theURLsPasswordIsHiddenWhereverTheURLRepeatsIt() {
        #expect(
            Redaction.standard.redacted(url: "https://ada:s3cr3tPass@h/files/s3cr3tPass?x=s3cr3tPass")
                == "https://ada:REDACTED@h/files/REDACTED?x=REDACTED")
    }

    @Test func anErrorBodyEchoingTheRequestURLDoesNotShowItsPassword() async throws {
        let session = MockURLSession()
        let url = try #require(URL(string: "https://ada:s3cr3tPass@h/v1/items?q=1"))
        session.nextResponse = HTTPURLResponse(url: url, statusCode: 500, httpVersion: nil, headerFields: nil)
        session.nextData = Data("you asked \(url.absoluteString) as \(Data("ada:s3cr3tPass".utf8).base64EncodedString())".utf8)
        let error = await #expect(throws: HTTPClientError.self) { try await HTTPClient(session: session).get(url) }
        let description = error?.description ?? ""
        #expect(description.hasPrefix("HTTP 500 from https://ada:REDACTED@h/v1/items?q=1: you asked"))
        #expect(!description.contains("s3cr3tPass"))
        #expect(!description.contains(Data("ada:s3cr3tPass".utf8).base64EncodedString()))
    }

    @Test func userInfoIsHiddenInAHeaderValue() {
        #expect(Redaction.standard.redacted(header: "Referer", value: "http://alice:pa55word@h/a") == "http://alice:REDACTED@h/a")
    }

    @Test func withoutNameRulesUserInfoIsKept() {
        #expect(Redaction.none.redacted(url: "http://alice:pa55word@h/a") == "http://alice:pa55word@h/a")
    }

    @Test func theBasicCredentialBuiltFromUserInfoIsAHiddenValue() {
        let values = Redaction.standard.hiddenValues(url: "http://alice:p%40ss@h/a", headers: [:], body: nil, contentType: nil)
        #expect(values.contains("p@ss"))
        #expect(values.contains(Data("alice:p@ss".utf8).base64EncodedString()))
        let echo = "Authorization: Basic \(Data("alice:p@ss".utf8).base64EncodedString())"
        #expect(!Redaction.standard.hidingEchoes(of: values).redacted(text: echo).contains("YWxpY2U6cEBzcw"))
    }

    @Test func anErrorDescriptionHidesTheURLsPassword() throws {
        let url = try #require(URL(string: "http://alice:pa55word@h/a"))
        let error = HTTPClientError(transportError: URLError(.cannotConnectToHost), url: url)
        #expect(!error.description.contains("pa55word"))
        #expect(error.description.contains("http://alice:REDACTED@h/a"))
    }

    // MARK: Name rules

    @Test(
        "standard rules hide these names in any spelling",
        arguments: [
            "password", "passwd", "pwd", "secret", "client_secret", "clientSecret", "token", "accessToken", "refreshToken",
            "id_token", "access-token", "auth_token", "private_token", "X-API-Token", "X-Amz-Security-Token", "Private-Token",
            "X-Amz-Signature", "signature", "api_key", "apiKey", "X-Api-Key", "credential", "X-Amz-Credential", "session",
            "sessionId", "PHPSESSID", "csrf_token", "X-CSRF-Token", "X-XSRF-TOKEN", "Authorization", "Proxy-Authorization",
            "Cookie", "Set-Cookie", "key", "sig",
            // OAuth, OpenID Connect, JWT and the schemes' other names.
            "X-Authorization", "Authentication", "X-Authentication", "auth", "X-Auth", "X-Auth-Key", "jwt", "X-JWT",
            "jwt_assertion", "assertion", "client_assertion", "code_verifier", "oauth_verifier", "device_code", "SAMLResponse",
            "Ocp-Apim-Subscription-Key", "subscription-key",
            // What a person types.
            "passcode", "pin", "otp", "totp",
        ])
    func standardNames(name: String) {
        #expect(Redaction.standard.hides(name: name))
        #expect(Redaction.standard.hides(parameter: name))
    }

    @Test(
        "standard rules keep ordinary names",
        arguments: [
            "id", "name", "token_type", "page", "Content-Type", "Accept", "author", "keyboard", "state", "nonce", "code_challenge",
            "code_challenge_method", "countryCode", "zipcode", "postal_code", "error_code", "user_code", "authority",
            "authorization_endpoint", "WWW-Authenticate", "Idempotency-Key", "AccountSid", "grant_type", "response_type",
            "redirect_uri", "pinned", "laptop",
        ])
    func ordinaryNames(name: String) {
        #expect(!Redaction.standard.hides(name: name))
        #expect(!Redaction.standard.hides(parameter: name))
    }

    /// `code` is an OAuth authorization code in `?code=` and a form, an error code in JSON;
    /// `sid` a session in `?sid=`, an identifier in JSON (Twilio's resources).
    @Test("standard rules hide these names as parameters only", arguments: ["code", "Code", "sid", "SID"])
    func parameterOnlyNames(name: String) {
        #expect(Redaction.standard.hides(parameter: name))
        #expect(!Redaction.standard.hides(name: name))
    }

    @Test func anOAuthCodeIsHiddenInTheQueryAndTheFormButAnErrorCodeInJSONIsKept() {
        #expect(
            Redaction.standard.redacted(url: "https://app/cb?code=SplxlOBeZQQYbYS6WxSbIA&state=af0ifjsldkj&sid=s-123456")
                == "https://app/cb?code=REDACTED&state=af0ifjsldkj&sid=REDACTED")
        let form = Redaction.standard.redacted(
            body: Data("grant_type=authorization_code&code=SplxlOBeZQQYbYS6WxSbIA&code_verifier=dBjftJeZ4CVP".utf8),
            contentType: "application/x-www-form-urlencoded")
        #expect(String(decoding: form, as: UTF8.self) == "grant_type=authorization_code&code=REDACTED&code_verifier=REDACTED")
        let json = #"{"error": {"code": "rate_limited", "message": "slow down"}, "sid": "SM1234", "id_token": "eyJ.x.y"}"#
        let redacted = Redaction.standard.redacted(body: Data(json.utf8), contentType: "application/json")
        #expect(
            String(decoding: redacted, as: UTF8.self)
                == #"{"error": {"code": "rate_limited", "message": "slow down"}, "sid": "SM1234", "id_token": "REDACTED"}"#)
    }

    @Test func aJWTAndAnAuthenticationHeaderAreHiddenAndTheirValuesWhereverTheyAreEchoed() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"
        let url = "https://h/a?jwt=\(jwt)&auth=au-7777&page=2"
        #expect(Redaction.standard.redacted(url: url) == "https://h/a?jwt=REDACTED&auth=REDACTED&page=2")
        let headers: HTTPHeaders = ["Authentication": "hd-8888", "X-Auth-Key": "ak-9999"]
        #expect(Redaction.standard.redacted(headers)["Authentication"] == "REDACTED")
        #expect(Redaction.standard.redacted(headers)["X-Auth-Key"] == "REDACTED")
        let values = Redaction.standard.hiddenValues(url: url, headers: headers, body: nil, contentType: nil)
        let echo = Redaction.standard.hidingEchoes(of: values).redacted(text: "got \(jwt), au-7777, hd-8888 and ak-9999")
        #expect(echo == "got REDACTED, REDACTED, REDACTED and REDACTED")
    }

    @Test func aHiddenJSONMemberLosesItsWholeValueWhateverItsType() {
        let body = #"{"password": ["x", "y"], "token": 123, "secret": {"a": {"b": "c"}}, "accessToken": "at-1", "ok": [1, {"n": "v"}]}"#
        let redacted = Redaction.standard.redacted(body: Data(body.utf8), contentType: "application/json")
        #expect(
            String(decoding: redacted, as: UTF8.self)
                == #"{"password": "REDACTED", "token": "REDACTED", "secret": "REDACTED", "accessToken": "REDACTED", "ok": [1, {"n": "v"}]}"#
        )
    }

    @Test func nestedAndEscapedMemberNamesAreFound() {
        let body = #"[{"user": {"pass\u0077ord": "p1", "profile": {"refresh_token": null}}}, {"apiKey": false}]"#
        let redacted = String(decoding: Redaction.standard.redacted(body: Data(body.utf8), contentType: nil), as: UTF8.self)
        #expect(redacted == #"[{"user": {"pass\u0077ord": "REDACTED", "profile": {"refresh_token": "REDACTED"}}}, {"apiKey": "REDACTED"}]"#)
    }

    @Test func queryAndFragmentParametersAreHiddenByNameKeepingTheirNames() {
        let url = "https://h/cb?access-token=a1&auth_token=a2&X-Amz-Signature=a3&private_token=a4&page=2#access_token=f1&state=s"
        #expect(
            Redaction.standard.redacted(url: url)
                == "https://h/cb?access-token=REDACTED&auth_token=REDACTED&X-Amz-Signature=REDACTED&private_token=REDACTED&page=2"
                + "#access_token=REDACTED&state=s")
    }

    @Test func aCombiningMarkAfterADelimiterDoesNotHideTheValue() {
        // "=\u{301}" is one Character: splitting by Character would not see the "=".
        let body = Redaction.standard.redacted(
            body: Data("user=ann&password=\u{301}hunter22".utf8),
            contentType: "application/x-www-form-urlencoded")
        #expect(String(decoding: body, as: UTF8.self) == "user=ann&password=REDACTED")
        #expect(
            Redaction.standard.redacted(url: "https://h/x?\u{301}token=t1&a=b#\u{301}access_token=f1")
                == "https://h/x?\u{301}token=REDACTED&a=b#\u{301}access_token=REDACTED")
        let values = Redaction.standard.hiddenValues(url: nil, headers: ["Cookie": "sid=\u{301}ck-12345"], body: nil, contentType: nil)
        #expect(values.contains("\u{301}ck-12345"))
    }

    @Test func formBodiesAreHiddenByField() {
        let body = Redaction.standard.redacted(
            body: Data("user=ann&passwd=hunter2&clientSecret=cs".utf8),
            contentType: "application/x-www-form-urlencoded; charset=utf-8")
        #expect(String(decoding: body, as: UTF8.self) == "user=ann&passwd=REDACTED&clientSecret=REDACTED")
    }

    @Test func valuesHiddenByNameAreCollectedSoEchoesCanBeHidden() {
        let headers: HTTPHeaders = ["Authorization": "Basic \(Data("ann:pa55word".utf8).base64EncodedString())", "X-Api-Token": "xt-1234"]
        let values = Redaction.standard.hiddenValues(
            url: "https://h/?token=qt-9876#code=1", headers: headers,
            body: Data(#"{"secret": {"k": "deep-5555"}}"#.utf8), contentType: nil)
        for expected in ["ann:pa55word", "pa55word", "xt-1234", "qt-9876", "deep-5555"] {
            #expect(values.contains(expected), "\(expected)")
        }
        let echo = Redaction.standard.hidingEchoes(of: values).redacted(text: "user ann:pa55word sent xt-1234, deep-5555")
        #expect(echo == "user REDACTED sent REDACTED, REDACTED")
    }
}

/// Forms and queries are split at `&` and `=` as Unicode scalars; the split an ASCII separator
/// takes by byte must find the same parts, whatever the text holds around it.
@Suite("Form splitting")
struct FormSplittingTests {
    /// The parts between every `separator`, by Unicode scalar: what the split must equal.
    static func reference(_ text: Substring, _ separator: Unicode.Scalar, maxSplits: Int) -> [String] {
        var parts: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == separator, parts.count < maxSplits {
                parts.append(String(current))
                current = String.UnicodeScalarView()
            } else {
                current.append(scalar)
            }
        }
        parts.append(String(current))
        return parts
    }

    @Test func anASCIISeparatorSplitsAsTheScalarsDoWhateverSurroundsIt() {
        let pieces = ["&", "=", "a", "é", "e\u{301}", "=\u{301}", "&\u{20DD}", "👍🏽", "%3D", "+", " ", "\u{0}", "ß"]
        // A fixed stream of choices (a linear congruential generator): the same texts every run.
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<2_000 {
            let text = (0..<next(24)).map { _ in pieces[next(pieces.count)] }.joined()
            // A substring in the middle of a larger string, as a form's pairs are.
            let whole = "x=1&" + text + "&y=2"
            let middle = whole.dropFirst(4).dropLast(4)
            for separator in ["&", "="] as [Unicode.Scalar] {
                for maxSplits in [1, Int.max] {
                    let split = middle.splitScalars(separator, maxSplits: maxSplits).map(String.init)
                    #expect(split == Self.reference(middle, separator, maxSplits: maxSplits), "\(text.debugDescription)")
                }
            }
        }
    }
}

@Suite("Errors and events hide credentials")
struct ClientRedactionTests {
    let session = MockURLSession()

    @Test func anUnacceptableStatusDescriptionHidesTheURLsKeyAndTheBodysPassword() async {
        session.enqueue(
            .status(
                400, headers: ["Content-Type": "application/json"],
                body: Data(#"{"error": "bad", "password": "pw-4444"}"#.utf8)))
        let error = await #expect(throws: HTTPClientError.self) {
            try await HTTPClient(session: session).get(url("https://h/x?api_key=k-1111&access_token=t-2222"))
        }
        let description = error?.description ?? ""
        for credential in ["k-1111", "t-2222", "pw-4444"] {
            #expect(!description.contains(credential), "\(credential) in \(description)")
        }
        #expect(description.contains("api_key=REDACTED"))
        #expect(description.contains(#""error": "bad""#))
    }

    @Test func aTransportErrorDescriptionHidesTheFailingURLsToken() async {
        session.enqueue(.error(URLError(.timedOut)))
        let error = await #expect(throws: HTTPClientError.self) {
            try await HTTPClient(session: session).get(url("https://h/x?token=t-2222"))
        }
        #expect(error?.description.contains("token=REDACTED") == true)
        #expect(error?.description.contains("t-2222") == false)
    }

    @Test func eventsHideTheURLsCredentialsAndAPIKeyHeaders() async throws {
        let events = Locked<[HTTPClientEvent]>([])
        session.enqueue(.status(200))
        let client = HTTPClient(
            session: session, headers: ["X-Api-Key": "xk-3333"], onEvent: { event in events.withLock { $0.append(event) } })
        _ = try await client.get(url("https://h/x?api_key=k-1111"))
        let event = try #require(events.current.first)
        #expect(event.url == url("https://h/x?api_key=REDACTED"))
        #expect(event.requestHeaders["X-Api-Key"] == "REDACTED")
        #expect(!event.description.contains("k-1111"))
    }

    @Test func aCredentialEchoedPercentEncodedOrEscapedInJSONIsHiddenToo() {
        let token = "ab/cd+ef \"gh\\ij"
        let values = Redaction.standard.hiddenValues(
            url: nil, headers: ["Authorization": "Bearer \(token)"], body: nil, contentType: nil)
        let redaction = Redaction.standard.hidingEchoes(of: values)
        let percent = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        #expect(redaction.redacted(text: "url ?t=\(percent) end") == "url ?t=REDACTED end")
        #expect(redaction.redacted(text: "url ?t=\(percent.lowercased()) end") == "url ?t=REDACTED end")
        #expect(redaction.redacted(text: #"{"error": "bad token ab\/cd+ef \"gh\\ij"}"#) == #"{"error": "bad token REDACTED"}"#)
        #expect(redaction.redacted(text: #"{"error": "bad token ab/cd+ef \"gh\\ij"}"#) == #"{"error": "bad token REDACTED"}"#)
    }
}
