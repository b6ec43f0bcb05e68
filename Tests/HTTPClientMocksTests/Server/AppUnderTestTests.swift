import Foundation
import HTTPClient
import HTTPClientMocks
import HTTPClientStubs
import Testing

/// A UI test's situation: the app runs in its own process (Examples/AppUnderTest), given the
/// address of a `StubServer` this test started. The test holds an answer while the app waits,
/// then verifies what the app sent, as it would against a `MockURLSession`.
@Suite("An app in its own process against a StubServer", .timeLimit(.minutes(10)))
struct AppUnderTestTests {
    @Test func theTestHoldsTheAppsFirstRequestThenVerifiesEverythingItSent() async throws {
        let failures = CollectedFailures()
        let stubs = StubRegistry("app under test", reporting: failures.reporting)
        let user = HeldResponse("user 1")
        let profile = stubs.stub(.get, "/users/1").respond(.json(raw: #"{"id": 1, "name": "Ada"}"#).held(by: user))
        let create = stubs.stub(.post, "/users").respond(.json(raw: #"{"id": 4, "name": "Grace"}"#, status: 201))
        let server = try StubServer(stubs)
        defer { server.stop() }

        let app = try LaunchedProcess(
            try HttpcTests.builtExecutable("AppUnderTest"), environment: ["API_BASE_URL": server.baseURL.absoluteString])
        #expect(app.nextLine() == "loading user 1")
        // The app's request has reached the server and waits: a UI test checks the spinner here.
        try await user.waitUntilHolding(timeout: eventWait)
        #expect(create.callCount == 0)
        user.release()
        #expect(app.nextLine() == "user: Ada")
        #expect(app.nextLine() == "created: Grace (4)")
        #expect(app.finish().status == 0)

        stubs.verify(profile, requested: .exactly(1))
        stubs.verify(create, requested: .exactly(1))
        stubs.verify(requestsMatching: .jsonBody(containing: ["name": "Grace"]), count: .exactly(1))
        stubs.verifyOrder(profile, create)
        #expect(failures.all.isEmpty)
    }
}
