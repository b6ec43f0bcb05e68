import Foundation
import HTTPClient
import HTTPClientMocks
@_spi(Engine) import HTTPClientStubs
import Testing

@Suite("Verification")
struct VerificationTests {
    let failures = CollectedFailures()
    var stubs: StubRegistry { StubRegistry("orders", reporting: failures.reporting) }

    /// Sends each request through `transport` to `stubs`, one after the other.
    private func send(_ requests: [URLRequest], through transport: Transport, to stubs: StubRegistry) async throws {
        let session = try transport.session(stubs)
        for request in requests { _ = try await session.data(for: request) }
    }

    /// Bodies are recorded whether they come as `httpBody` or as a stream (which a real session
    /// sends chunked).
    @Test(arguments: Transport.allCases)
    func callCountsAndCapturedRequestsWithDecodedBodies(_ transport: Transport) async throws {
        let stubs = self.stubs
        let create = stubs.stub(.post, "/orders/{shop}").respond(.status(201))
        try await send(
            [
                request("POST", "https://h/orders/berlin", body: Data(#"{"item":"tea"}"#.utf8), streamed: true),
                request("POST", "https://h/orders/paris", body: Data(#"{"item":"cake"}"#.utf8)),
            ], through: transport, to: stubs)
        #expect(create.callCount == 2)
        #expect(create.calls.map { $0.pathParameters["shop"] } == ["berlin", "paris"])
        #expect(create.calls.map { $0.json } == [.object(["item": .string("tea")]), .object(["item": .string("cake")])])
        struct Order: Decodable, Equatable { let item: String }
        #expect(try create.calls[0].decodeBody(as: Order.self) == Order(item: "tea"))
        #expect(stubs.verify(create, requested: .exactly(2)))
        #expect(stubs.verify(create, requested: .atLeast(1)))
        #expect(stubs.verify(create, requested: .atMost(2)))
        #expect(failures.all.isEmpty)
    }

    @Test func aFailedCountSaysExpectedAndActualAndListsTheRequests() {
        let stubs = self.stubs
        let list = stubs.stub(.get, "/orders").respond(.status(200)).named("list orders")
        _ = stubs.resolve(request("GET", "https://h/orders"))
        #expect(!stubs.verify(list, requested: .exactly(2)))
        #expect(!stubs.verify(list, requested: .exactly(0)))
        #expect(
            failures.all == [
                "Expected list orders to be requested exactly 2 times, but it was requested 1 time.\nRequests made to \"orders\":\n  1. GET https://h/orders",
                "Expected list orders to be requested exactly 0 times, but it was requested 1 time.\nRequests made to \"orders\":\n  1. GET https://h/orders",
            ])
    }

    @Test func failuresAreReportedAtTheCallersLine() {
        let stubs = self.stubs
        let never = stubs.stub(.get, "/x")
        let line = #line + 1
        stubs.verify(never, requested: .exactly(1))
        let site = failures.messages.current.first?.site
        #expect(site?.line == line)
        #expect(site?.fileID.hasSuffix("VerificationTests.swift") == true)
    }

    @Test func aCustomHandlerIsGivenTheMessageAndTheCallersFileAndLine() {
        let collected = Locked<[(message: String, location: String)]>([])
        let stubs = StubRegistry(reporting: .custom { message, location in collected.withLock { $0.append((message, location)) } })
        let never = stubs.stub(.get, "/x")
        let line = #line + 1
        stubs.verify(never, requested: .exactly(1))
        #expect(collected.current.map(\.location) == ["HTTPClientMocksTests/VerificationTests.swift:\(line)"])
        #expect(collected.current.first?.message.isEmpty == false)
    }

    @Test(arguments: Transport.allCases)
    func requestsMatchingAMatcherAreCountedWhetherStubbedOrNot(_ transport: Transport) async throws {
        let stubs = self.stubs
        stubs.stub(.get, .prefix("/")).respond(.status(200))
        try await send([request("GET", "https://h/a?page=1"), request("GET", "https://h/b?page=1")], through: transport, to: stubs)
        #expect(stubs.verify(requestsMatching: .query(["page": "1"]), count: .exactly(2)))
        #expect(!stubs.verify(requestsMatching: .path("/c"), count: .exactly(1)))
        #expect(failures.all.first?.hasPrefix("Expected path /c to be requested exactly 1 time, but it was requested 0 times.") == true)
    }

    @Test(arguments: Transport.allCases)
    func requestOrder(_ transport: Transport) async throws {
        let stubs = self.stubs
        let login = stubs.stub(.post, "/login")
        let fetch = stubs.stub(.get, "/me")
        let never = stubs.stub(.get, "/never")
        try await send([request("POST", "https://h/login"), request("GET", "https://h/me")], through: transport, to: stubs)
        #expect(stubs.verifyOrder(login, fetch))
        #expect(!stubs.verifyOrder(fetch, login))
        #expect(!stubs.verifyOrder(login, never))
        #expect(failures.all.count == 2)
        #expect(failures.all[1].hasPrefix("Expected method GET && path /never to be requested in order, but it was never requested."))
    }

    @Test func unusedStubsAreDetectedUnlessTheyOptOut() {
        let stubs = self.stubs
        stubs.stub(.get, "/used")
        stubs.stub(.get, "/unused")
        stubs.stub(.get, "/optional").allowingUnused()
        _ = stubs.resolve(request("GET", "https://h/used"))
        #expect(stubs.unusedStubs.map(\.description) == ["method GET && path /unused"])
        #expect(!stubs.verifyAllStubsUsed())
        #expect(failures.all.first?.contains("method GET && path /unused") == true)
        #expect(failures.all.first?.contains("/optional") == false)
    }

    @Test func verifyChecksBothMissesAndUnusedStubs() {
        let stubs = self.stubs
        stubs.stub(.get, "/a")
        #expect(!stubs.verify())
        #expect(failures.all.count == 1)
        _ = stubs.resolve(request("GET", "https://h/b"))
        #expect(!stubs.verify())
        #expect(failures.all.count == 4)  // the miss itself, then both checks
        #expect(failures.all[2].hasPrefix("1 request matched no stub:"))
    }

    // MARK: Reporting to Swift Testing

    @Test func automaticReportingRecordsASwiftTestingIssueAtTheCallersLine() {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/users/1")
        let line = #line + 2
        withKnownIssue {
            stubs.verify(stub, requested: .exactly(1))
        } matching: { issue in
            issue.sourceLocation?.line == line
                && issue.comments.contains { $0.rawValue.contains("to be requested exactly 1 time, but it was requested 0 times") }
        }
    }

    @Test func registriesCreatedInATestAreNamedAfterIt() {
        #expect(StubRegistry().name == "registriesCreatedInATestAreNamedAfterIt()")
        #expect(StubRegistry("mine").name == "mine")
    }
}
