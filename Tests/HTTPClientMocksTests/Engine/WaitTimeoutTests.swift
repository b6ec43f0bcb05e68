import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// Every wait ends well inside a test's time limit, and when it runs out it says what did
/// happen. Each wait here is for something that never comes, so running out is its only end.
@Suite("Waits that run out")
struct WaitTimeoutTests {
    let stubs = StubRegistry("feed screen", reporting: .disabled)

    func send(_ url: String) {
        MockURLSession(stubs: stubs).makeDataTask(with: URLRequest(url: testURL(url))) { _, _, _ in }.resume()
    }

    @Test func everyWaitGivesUpAfterTenSecondsByDefaultWellInsideAMinute() async throws {
        let stub = stubs.stub(.get, "/never").allowingUnused()
        let gate = HeldResponse("never held")
        async let requests: StubWaitError? = Self.error { try await stub.waitForRequests() }
        async let deliveries: StubWaitError? = Self.error { try await stub.waitForDeliveries() }
        async let holding: StubWaitError? = Self.error { try await gate.waitUntilHolding() }
        for error in await [requests, deliveries, holding] {
            #expect(error?.timeout == .seconds(10))
            #expect(error?.description.hasPrefix("Waited 10.0 seconds for 1 ") == true)
        }
    }

    @Test func aWaitForRequestsListsWhatTheStubAndItsRegistrySaw() async throws {
        let feed = stubs.stub(.get, "/feed").respond(.text("[]"))
        stubs.stub(.get, "/profile").respond(.text("{}")).named("the profile")
        send("https://h/feed?page=1&token=live-token-1")
        send("https://h/profile")
        send("https://h/feeds")

        let error = try #require(await Self.error { try await feed.waitForRequests(2, timeout: .milliseconds(20)) })

        #expect(error.seen == 1)
        #expect(
            error.description == """
                Waited 0.02 seconds for 2 requests to method GET && path /feed; 1 happened.
                It answered:
                  GET https://h/feed?page=1&token=REDACTED
                "feed screen" saw 2 other requests:
                  GET https://h/profile: answered by the profile
                  GET https://h/feeds: matched no stub
                """)
    }

    @Test func aWaitWithNothingSentAsksWhetherTheCodeSendsIt() async throws {
        let feed = stubs.stub(.get, "/feed").allowingUnused()
        let error = try #require(await Self.error { try await feed.waitForRequests(timeout: .milliseconds(20)) })
        #expect(error.description.hasSuffix("0 happened. Is the code under test sending it, to this registry's session?"))
    }

    @Test func aWaitForDeliveriesSaysHowManyArrivedAndAreStillOnTheirWay() async throws {
        let gate = HeldResponse("feed gate")
        let feed = stubs.stub(.get, "/feed").respond(.text("[]").held(by: gate))
        send("https://h/feed")

        let error = try #require(await Self.error { try await feed.waitForDeliveries(timeout: .milliseconds(20)) })

        #expect(error.seen == 0)
        #expect(
            error.description.hasPrefix(
                """
                Waited 0.02 seconds for 1 responses of method GET && path /feed delivered; 0 happened.
                1 arrived and 1 of their responses are not delivered yet (held, delayed, or their tasks not resumed).
                It answered:
                  GET https://h/feed
                """))
        gate.release()
    }

    @Test func aWaitUntilHoldingListsWhatTheGateHeldAndWhetherItStillHoldsIt() async throws {
        let gate = HeldResponse("feed gate")
        stubs.stub(.get, "/feed").respond(.text("[]").held(by: gate))
        send("https://h/feed?token=live-token-2")

        let error = try #require(await Self.error { try await gate.waitUntilHolding(2, timeout: .milliseconds(20)) })

        #expect(
            error.description == """
                Waited 0.02 seconds for 2 requests held by feed gate; 1 happened.
                It held:
                  GET https://h/feed?token=REDACTED: held now
                """)
        gate.release()
        let nothing = try #require(await Self.error { try await HeldResponse("idle").waitUntilHolding(timeout: .milliseconds(20)) })
        #expect(nothing.description.contains("No request reached it: does a stub answer with .held(by:) it"))
    }

    /// The error `wait` ends with; `nil` when it returns (which fails the test that expected it).
    static func error(_ wait: () async throws -> Void) async -> StubWaitError? {
        do {
            try await wait()
            Issue.record("the wait returned, but nothing it waits for happens")
        } catch let error as StubWaitError {
            return error
        } catch {
            Issue.record("the wait threw \(error)")
        }
        return nil
    }
}
