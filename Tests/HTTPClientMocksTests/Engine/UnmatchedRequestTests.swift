import Foundation
import HTTPClientMocks
@_spi(Engine) import HTTPClientStubs
import Testing

@testable import HTTPClient

@Suite("Unmatched requests")
struct UnmatchedRequestTests {
    @Test func theReportNamesTheRequestExplainsEachStubAndEndsWithASnippet() throws {
        let failures = CollectedFailures()
        let stubs = StubRegistry("profile tests", reporting: failures.reporting)
        stubs.stub(.post, "/users")
        stubs.stub(.get, "/users/1")
        stubs.stub(.get, "/users/{id}/avatar")
        let sent = request(
            "GET", "https://api.example.com/users/2", headers: ["Accept": "application/json", "Authorization": "Bearer s3cret"])

        guard case .unmatched(let error) = stubs.resolve(sent) else {
            Issue.record("expected a miss")
            return
        }

        let report = error.report
        #expect(
            report.candidates.map(\.stub) == [
                "method GET && path /users/1", "method GET && path /users/{id}/avatar", "method POST && path /users",
            ])
        #expect(report.candidates[0].reasons == ["path /users/2 != /users/1"])
        #expect(report.candidates[2].reasons == ["method GET != POST", "path /users/2 != /users"])
        #expect(!report.description.contains("s3cret"))
        #expect(
            report.description.hasPrefix(
                """
                Unmatched request in "profile tests": no stub matches
                  GET https://api.example.com/users/2
                  Accept: application/json
                  Authorization: REDACTED

                Registered stubs, closest first:
                  1. method GET && path /users/1  (HTTPClientMocksTests/UnmatchedRequestTests.swift:
                """))
        #expect(
            report.description.hasSuffix(
                """
                To stub it:
                  stubs.stub(.get, "https://api.example.com/users/2")
                      .respond(.status(200))
                """))
        #expect(failures.all == [report.description])
        #expect(stubs.unmatchedRequests.count == 1)
    }

    @Test func theSnippetStubsTheRequestWhenPasted() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        let sent = request("POST", "https://api.example.com/notes?draft=1", body: Data(#"{"title": "Hi \"there\""}"#.utf8))
        guard case .unmatched(let error) = stubs.resolve(sent) else {
            Issue.record("expected a miss")
            return
        }
        #expect(
            error.report.snippet == #"""
                stubs.stub(.post, "https://api.example.com/notes?draft=1")
                    .matching(.jsonBody(raw: #"{"title": "Hi \"there\""}"#))
                    .respond(.status(200))
                """#)
        // The snippet, pasted:
        stubs.stub(.post, "https://api.example.com/notes?draft=1")
            .matching(.jsonBody(raw: #"{"title": "Hi \"there\""}"#))
            .respond(.status(200))
        #expect(
            stubs.status(for: request("POST", "https://api.example.com/notes?draft=1", body: Data(#"{"title": "Hi \"there\""}"#.utf8)))
                == 200)
    }

    @Test func strictByDefaultTheTestFailsAndTheClientGetsTheReport() async throws {
        let stubs = StubRegistry("strict")
        let client = HTTPClient(session: MockURLSession(stubs: stubs))
        let clientError = Locked<HTTPClientError?>(nil)
        await withKnownIssue {
            do {
                _ = try await client.get(testURL("https://api.example.com/missing"))
            } catch {
                clientError.withLock { $0 = error as? HTTPClientError }
            }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("Unmatched request in \"strict\"") }
        }
        let report = try #require(stubs.unmatchedRequests.first)
        #expect(clientError.current?.description.hasSuffix(report.description) == true)
        #expect(stubs.unmatchedRequests.count == 1)
    }

    /// Where a miss cannot reach the client as an error (documented), it is an answer whose
    /// body is the report.
    @Test(arguments: Transport.allCases)
    func anUnmatchedRequestFailsWithTheReportAndNeverReachesTheNetwork(_ transport: Transport) async throws {
        let failures = CollectedFailures()
        let stubs = StubRegistry("transport registry", reporting: failures.reporting)
        stubs.stub(.get, "/known").allowingUnused()
        let client = HTTPClient(session: try transport.session(stubs))
        let error = await #expect(throws: HTTPClientError.self) { try await client.get(testURL("https://unreachable.invalid/unknown")) }
        #expect(error?.urlError?.code != .cannotFindHost)
        let clientSees = transport.differs(in: .unmatchedRequests) ? error?.response?.text : error?.description
        #expect(error?.response?.statusCode == (transport.differs(in: .unmatchedRequests) ? 404 : nil))
        #expect(clientSees?.contains("Unmatched request in \"transport registry\"") == true)
        #expect(clientSees?.contains("path /unknown != /known") == true)
        #expect(failures.all.count == 1)
        #expect(failures.all.first?.contains("path /unknown != /known") == true)
        #expect(stubs.unmatchedRequests.count == 1)
    }

    /// Where there is no network to pass through to (documented), the answer says so.
    @Test(arguments: Transport.allCases)
    func passThroughHostsReachTheRealNetwork(_ transport: Transport) async throws {
        let failures = CollectedFailures()
        let stubs = StubRegistry(passthroughHosts: ["127.0.0.1"], reporting: failures.reporting)
        // Port 9 (discard) on loopback is closed here: a connection refusal proves the request
        // left the stub engine for the real loading path.
        let client = HTTPClient(session: try transport.session(stubs))
        let error = await #expect(throws: HTTPClientError.self) { try await client.get(testURL("http://127.0.0.1:9/")) }
        if transport.differs(in: .passThrough) {
            #expect(error?.response?.statusCode == 502)
            #expect(error?.response?.text?.contains("no upstream") == true)
        } else {
            #expect(error?.urlError?.code == .cannotConnectToHost)
        }
        #expect(failures.all.isEmpty)
    }

    @Test func withNoStubsTheReportSaysSo() {
        let stubs = StubRegistry(reporting: .disabled)
        guard case .unmatched(let error) = stubs.resolve(request("GET", "https://h/")) else {
            Issue.record("expected a miss")
            return
        }
        #expect(error.description.contains("No stubs are registered."))
    }

    @Test func theReportShowsTheFiveClosestAndCountsTheRest() {
        let stubs = StubRegistry(reporting: .disabled)
        for index in 0..<12 { stubs.stub(.get, "/other/\(index)") }
        guard case .unmatched(let error) = stubs.resolve(request("GET", "https://h/x")) else {
            Issue.record("expected a miss")
            return
        }
        #expect(error.description.contains("  … and 7 more"))
    }

    @Test func passThroughHostsGoToThePassThroughSession() async throws {
        let network = MockURLSession()
        network.nextData = Data("from the network".utf8)
        let stubs = StubRegistry(passthroughHosts: ["127.0.0.1"], reporting: .disabled)
        stubs.stub(.get, "http://127.0.0.1/stubbed").respond(.text("stubbed"))
        let client = HTTPClient(session: MockURLSession(stubs: stubs, passthroughSession: network))

        #expect(try await client.get(testURL("http://127.0.0.1/stubbed")).text == "stubbed")
        #expect(try await client.get(testURL("http://127.0.0.1/other")).text == "from the network")
        await #expect(throws: HTTPClientError.self) { try await client.get(testURL("http://10.0.0.1/other")) }
        #expect(network.requests.map(\.url.path) == ["/other"])
    }
}
