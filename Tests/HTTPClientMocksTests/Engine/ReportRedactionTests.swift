import Foundation
import HTTPClient
import HTTPClientMocks
@_spi(Engine) import HTTPClientStubs
import Testing

/// Reports, snippets, errors and events hide credentials, stay short for huge bodies, and show
/// Swift that compiles.
@Suite("What reports show")
struct ReportRedactionTests {
    static let credentials = ["k-1111", "t-2222", "xk-3333", "pw-4444"]

    func miss(_ sent: URLRequest, in stubs: StubRegistry) -> UnmatchedRequestReport? {
        guard case .unmatched(let error) = stubs.resolve(sent) else { return nil }
        return error.report
    }

    @Test func anUnmatchedReportAndItsSnippetHideCredentialsKeepingTheirNames() throws {
        let stubs = StubRegistry(reporting: .disabled)
        // A near miss whose reason would quote the request's query.
        stubs.stub(.post, "/x").matching(.query(["access_token": "other"]))
        let sent = request(
            "POST", "https://api.example.com/x?api_key=k-1111&access_token=t-2222",
            headers: ["X-Api-Key": "xk-3333", "Content-Type": "application/json"],
            body: Data(#"{"user": "ann", "password": "pw-4444"}"#.utf8))
        let report = try #require(miss(sent, in: stubs))
        for credential in Self.credentials {
            #expect(!report.description.contains(credential), "\(credential) in the report")
            #expect(!report.snippet.contains(credential), "\(credential) in the snippet")
        }
        #expect(report.snippet.contains("api_key=REDACTED&access_token=REDACTED"))
        #expect(report.snippet.contains(#""password": "REDACTED""#))
        #expect(report.description.contains("X-Api-Key: REDACTED"))
    }

    @Test func aJWTAnOAuthCodeAndAnAuthenticationHeaderAreHiddenInTheReport() throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/callback").matching(.query(["state": "expected"]))
        let sent = request(
            "GET", "https://app.example.com/callback?code=oc-5555&state=st-kept&sid=sd-6666&jwt=eyJ0.eyJ1.jw-7777",
            headers: ["Authentication": "ah-8888"])
        let report = try #require(miss(sent, in: stubs))
        for credential in ["oc-5555", "sd-6666", "jw-7777", "ah-8888"] {
            #expect(!report.description.contains(credential), "\(credential) in the report")
            #expect(!report.snippet.contains(credential), "\(credential) in the snippet")
        }
        #expect(report.snippet.contains("code=REDACTED&state=st-kept&sid=REDACTED&jwt=REDACTED"))
        #expect(report.description.contains("Authentication: REDACTED"))
    }

    @Test func aRegistrysOwnRulesAndSecretsApplyToItsReports() throws {
        let stubs = StubRegistry(reporting: .disabled, redaction: .standard.name("X-Tenant").secret("tenant-secret-9"))
        let sent = request("GET", "https://h/tenant-secret-9/x", headers: ["X-Tenant": "acme-corp"])
        let report = try #require(miss(sent, in: stubs))
        #expect(!report.description.contains("acme-corp"))
        #expect(!report.description.contains("tenant-secret-9"))
    }

    @Test func verificationMessagesHideCredentialsInTheRequestLog() {
        let failures = CollectedFailures()
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/x").respond(.status(200))
        _ = stubs.resolve(request("GET", "https://h/x?token=t-2222"))
        stubs.verify(requestsMatching: .path("/y"), count: .exactly(1))
        #expect(failures.all.count == 1)
        #expect(failures.all.allSatisfy { !$0.contains("t-2222") && $0.contains("token=REDACTED") })
    }

    @Test func aReportShowsAFewKilobytesOfAHugeBodyAndItsSize() throws {
        let stubs = StubRegistry(reporting: .disabled)
        let body = Data(repeating: UInt8(ascii: "a"), count: 10 * 1024 * 1024)
        let report = try #require(miss(request("POST", "https://h/upload", body: body), in: stubs))
        #expect(report.description.utf8.count < 8 * 1024)
        #expect(report.description.contains("(10485760 bytes in all)"))
        #expect(report.snippet.contains("The body (10485760 bytes) is not shown"))
    }

    @Test func aMultiLineBodyGivesASnippetLiteralThatCompiles() throws {
        let stubs = StubRegistry(reporting: .disabled)
        let report = try #require(miss(request("POST", "https://h/notes", body: Data("line 1\nline \"2\"\r\n\tend".utf8)), in: stubs))
        #expect(report.snippet.contains(#".matching(.body("line 1\nline \"2\"\r\n\tend"))"#))
        // The literal, pasted, is the body:
        #expect("line 1\nline \"2\"\r\n\tend" == String(decoding: try #require(stubs.requests.first).body, as: UTF8.self))
    }

    @Test func anExcerptCutInsideACharacterIsStillText() throws {
        let stubs = StubRegistry(reporting: .disabled)
        // 2049 bytes of "é" (2 bytes each): the 2048-byte cut falls inside a character.
        let body = Data(String(repeating: "é", count: 1500).utf8)
        let report = try #require(miss(request("POST", "https://h/x", body: body), in: stubs))
        #expect(report.description.contains("Body: \"éé"))
        #expect(!report.description.contains("binary"))
    }
}
