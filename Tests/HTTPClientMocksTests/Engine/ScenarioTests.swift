import Foundation
import HTTPClient
import HTTPClientMocks
@_spi(Engine) import HTTPClientStubs
import Testing

/// The three transports over the one engine: a scenario must behave alike on each.
enum ScenarioTransport: String, CaseIterable, CustomStringConvertible, Sendable {
    case mockSession
    case urlProtocol
    case stubServer

    var description: String { rawValue }

    /// A client of `stubs` over this transport (by path: stubs of `/cart` answer it), and what
    /// stops the transport when the test is done.
    func client(_ stubs: StubRegistry) throws -> (client: HTTPClient, stop: @Sendable () -> Void) {
        switch self {
        case .mockSession:
            return (HTTPClient(session: MockURLSession(stubs: stubs), baseURL: testURL("https://api.example.com")), {})
        case .urlProtocol:
            return (HTTPClient(session: stubs.makeURLSession(), baseURL: testURL("https://api.example.com")), {})
        case .stubServer:
            let server = try StubServer(stubs)
            return (HTTPClient(session: URLSession(configuration: .ephemeral), baseURL: server.baseURL), { server.stop() })
        }
    }
}

@Suite("Scenarios: stubs that answer by the state of a scenario, and move it")
struct ScenarioTests {
    let failures = CollectedFailures()

    // MARK: States and moves

    @Test func everyScenarioStartsInStarted() {
        let stubs = StubRegistry()
        let cart = stubs.scenario("cart")

        #expect(cart.state == .started)
        #expect(cart.state.name == "Started")
        #expect("\(cart.state)" == "Started")
    }

    @Test func aStubAnswersOnlyWhileItsScenarioIsInTheStateItNeeds() {
        let stubs = StubRegistry(reporting: .disabled)
        let cart = stubs.scenario("cart")
        stubs.stub(.get, "/cart").inScenario(cart, when: "has items").respond(.text("pen"))

        #expect(answer(stubs, "https://h/cart") == nil)
        cart.state = "has items"
        #expect(answer(stubs, "https://h/cart") == "pen")
    }

    @Test func aStubThatAnswersMovesItsScenarioToTheNextState() {
        let stubs = StubRegistry()
        let cart = stubs.scenario("cart")
        stubs.stub(.post, "/cart").inScenario(cart, when: .started, movingTo: "has items").respond(.status(201))

        #expect(answer(stubs, "https://h/cart", method: "POST") != nil)
        #expect(cart.state == "has items")
    }

    @Test func aStubThatNeedsNoStateAnswersInAnyStateAndMovesTheScenario() {
        let stubs = StubRegistry()
        let session = stubs.scenario("session")
        stubs.stub(.post, "/logout").inScenario(session, movingTo: .started).respond(.text("bye"))

        session.state = "logged in"
        #expect(answer(stubs, "https://h/logout", method: "POST") == "bye")
        #expect(session.state == .started)
        #expect(answer(stubs, "https://h/logout", method: "POST") == "bye")
        #expect(session.state == .started)
    }

    @Test func aRequestAStubLeavesInAnotherStateGoesToAnOlderStub() {
        let stubs = StubRegistry()
        let feature = stubs.scenario("feature")
        stubs.stub(.get, "/flags").respond(.text("default"))
        stubs.stub(.get, "/flags").inScenario(feature, when: "beta").respond(.text("beta"))

        #expect(answer(stubs, "https://h/flags") == "default")
        feature.state = "beta"
        #expect(answer(stubs, "https://h/flags") == "beta")
    }

    @Test func aStubThatDoesNotAnswerLeavesItsScenarioWhereItIs() {
        let stubs = StubRegistry(reporting: .disabled)
        let cart = stubs.scenario("cart")
        stubs.stub(.post, "/cart").matching(.body("pen")).inScenario(cart, movingTo: "has items").respond(.status(201)).times(1)

        _ = stubs.resolve(request("POST", "https://h/cart", body: Data("cup".utf8)))  // does not match
        #expect(cart.state == .started)
        _ = stubs.resolve(request("POST", "https://h/cart", body: Data("pen".utf8)))  // answers, moves
        cart.state = "emptied"
        _ = stubs.resolve(request("POST", "https://h/cart", body: Data("pen".utf8)))  // used up
        #expect(cart.state == "emptied")
    }

    @Test func aStateNamedByInterpolationIsTheStateOfThatName() {
        let stubs = StubRegistry()
        let pages = stubs.scenario("pages")
        let page = 2
        stubs.stub(.get, "/next").inScenario(pages, when: "page \(page)", movingTo: "page \(page + 1)").respond(.text("2"))

        pages.state = "page 2"
        #expect(answer(stubs, "https://h/next") == "2")
        #expect(pages.state == "page 3")
    }

    @Test func scenariosOfOneNameShareTheirStateAndRegistriesDoNot() {
        let stubs = StubRegistry()
        let other = StubRegistry()

        stubs.scenario("cart").state = "has items"

        #expect(stubs.scenario("cart").state == "has items")
        #expect(stubs.scenario("wishlist").state == .started)
        #expect(other.scenario("cart").state == .started)
    }

    // MARK: Resetting

    @Test func resetScenariosPutsEveryScenarioBackInStartedAndKeepsTheStubs() {
        let stubs = StubRegistry()
        let cart = stubs.scenario("cart")
        let session = stubs.scenario("session")
        let items = stubs.stub(.get, "/cart").inScenario(cart, when: "has items").respond(.text("pen"))
        cart.state = "has items"
        session.state = "logged in"
        _ = answer(stubs, "https://h/cart")

        stubs.resetScenarios()

        #expect(cart.state == .started && session.state == .started)
        #expect(stubs.stubs.count == 1 && items.callCount == 1 && stubs.requests.count == 1)
    }

    @Test func resetOfTheRegistryPutsEveryScenarioBackInStarted() {
        let stubs = StubRegistry()
        let cart = stubs.scenario("cart")
        cart.state = "has items"

        stubs.reset()

        #expect(cart.state == .started)
    }

    @Test func removeAllRecordsAndVerificationLeaveScenariosWhereTheyAre() async throws {
        let stubs = StubRegistry()
        let cart = stubs.scenario("cart")
        let add = stubs.stub(.post, "/cart").inScenario(cart, when: .started, movingTo: "has items").respond(.status(201))
        let session = MockURLSession(stubs: stubs)
        _ = try await session.data(for: request("POST", "https://h/cart"))

        #expect(stubs.verify(add, requested: .exactly(1)))
        stubs.verify()
        session.removeAllRecords()

        #expect(cart.state == "has items")
        #expect(stubs.requests.isEmpty)
    }

    // MARK: Held and unmatched requests

    @Test func aStubMovesItsScenarioWhenItTakesTheRequestBeforeAHeldAnswerIsReleased() async throws {
        let stubs = StubRegistry()
        let order = stubs.scenario("order")
        let gate = HeldResponse()
        stubs.stub(.post, "/orders").inScenario(order, movingTo: "placed").respond(.status(201).held(by: gate))
        let session = MockURLSession(stubs: stubs)

        let placing = Task { try await session.data(for: request("POST", "https://h/orders")) }
        try await gate.waitUntilHolding(timeout: eventWait)
        #expect(order.state == "placed")
        gate.release()

        #expect(try await placing.value.1.status == 201)
    }

    @Test func theUnmatchedReportSaysWhenOnlyTheScenariosStateKeptAStubFromAnswering() throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let cart = stubs.scenario("cart")
        stubs.stub(.get, "/wishlist")
        stubs.stub(.get, "/cart").inScenario(cart, when: "has items").respond(.text("pen"))

        guard case .unmatched(let error) = stubs.resolve(request("GET", "https://h/cart")) else {
            Issue.record("expected a miss")
            return
        }

        let closest = try #require(error.report.candidates.first)
        #expect(closest.stub == "method GET && path /cart")
        #expect(closest.reasons == [#"matches, but scenario "cart" is in state "Started", the stub needs "has items""#])
        #expect(error.report.summary.contains(#"scenario "cart" is in state "Started", the stub needs "has items""#))
        #expect(failures.all == [error.report.description])
    }

    @Test func theUnmatchedReportSaysWhenAStubIsBothUsedUpAndInAnotherState() throws {
        let stubs = StubRegistry(reporting: .disabled)
        let cart = stubs.scenario("cart")
        stubs.stub(.post, "/cart").inScenario(cart, when: .started, movingTo: "has items").respond(.status(201)).times(1)
        _ = stubs.resolve(request("POST", "https://h/cart"))

        guard case .unmatched(let error) = stubs.resolve(request("POST", "https://h/cart")) else {
            Issue.record("expected a miss")
            return
        }

        #expect(
            error.report.candidates.first?.reasons == [
                #"matches, but scenario "cart" is in state "has items", the stub needs "Started""#, "matches, but is used up (1 calls)",
            ])
    }

    // MARK: Concurrency

    @Test func ofManyConcurrentRequestsOnlyTheFirstSeesTheStateItsAnswerMoves() throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let cart = stubs.scenario("cart")
        let add = stubs.stub(.post, "/cart").inScenario(cart, when: .started, movingTo: "has items").respond(.status(201))
        let again = stubs.stub(.post, "/cart").inScenario(cart, when: "has items").respond(.status(409))
        let session = MockURLSession(stubs: stubs)
        let statuses = CompletionRecorder<Int>()

        DispatchQueue.concurrentPerform(iterations: 400) { _ in
            session.makeDataTask(with: request("POST", "https://h/cart")) { _, response, _ in
                statuses.record(response?.status ?? -1)
            }.resume()
        }

        #expect(statuses.allValues.count == 400)
        #expect(statuses.allValues.filter { $0 == 201 }.count == 1)
        #expect(statuses.allValues.filter { $0 == 409 }.count == 399)
        #expect(add.callCount == 1 && again.callCount == 399)
        #expect(failures.all.isEmpty)
    }

    @Test func concurrentRequestsWalkAChainOfStatesOneStepEach() throws {
        let steps = 100
        let stubs = StubRegistry(reporting: failures.reporting)
        let walk = stubs.scenario("walk")
        walk.state = "0"
        for step in 0..<steps {
            stubs.stub(.get, "/step").inScenario(walk, when: "\(step)", movingTo: "\(step + 1)").respond(.text("\(step)"))
        }
        let session = MockURLSession(stubs: stubs)
        let answers = CompletionRecorder<String>()

        DispatchQueue.concurrentPerform(iterations: steps) { _ in
            session.makeDataTask(with: request("GET", "https://h/step")) { data, _, _ in
                answers.record(data.map { String(decoding: $0, as: UTF8.self) } ?? "no answer")
            }.resume()
        }

        #expect(answers.allValues.sorted() == (0..<steps).map(String.init).sorted())
        #expect(walk.state == "\(steps)")
        #expect(failures.all.isEmpty)
    }

    @Test func aRequestThatSawTheOldStateIsTriedAgainWhenAnotherMovesTheScenarioMidway() throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let cart = stubs.scenario("cart")
        let reachedOlderStub = DispatchSemaphore(value: 0)
        let goOn = DispatchSemaphore(value: 0)
        // Holds the request marked X-Held in the older stub's conditions, after it found the newer
        // stub's scenario in Started, the first time.
        let firstLook = Locked(true)
        let holdsMarked = RequestMatcher.custom("held midway") { request in
            let isFirst = firstLook.withLock { first in
                defer { first = false }
                return first
            }
            if isFirst && request.headers["X-Held"] != nil {
                reachedOlderStub.signal()
                _ = goOn.wait(timeout: .now() + 600)
            }
            return true
        }
        stubs.stub(.post, "/cart").matching(holdsMarked).inScenario(cart, when: .started, movingTo: "has items").respond(.status(201))
        stubs.stub(.post, "/cart").inScenario(cart, when: "has items").respond(.status(409))
        let heldStatus = Locked<Int?>(nil)
        let heldDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            heldStatus.withLock { $0 = stubs.status(for: request("POST", "https://h/cart", headers: ["X-Held": "1"])) }
            heldDone.signal()
        }

        try #require(reachedOlderStub.wait(timeout: .now() + 600) == .success)
        #expect(stubs.status(for: request("POST", "https://h/cart")) == 201)  // moves the cart meanwhile
        goOn.signal()
        try #require(heldDone.wait(timeout: .now() + 600) == .success)

        // In Started it would have been answered 201, in "has items" 409: never a miss.
        #expect(heldStatus.current == 409)
        #expect(failures.all.isEmpty)
    }

    @Test func aMissIsDecidedAgainWhenAnotherRequestMovesTheScenarioBeforeItIsReported() throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let cart = stubs.scenario("cart")
        stubs.stub(.post, "/cart").inScenario(cart, movingTo: "has items").respond(.status(201))
        stubs.stub(.get, "/cart").inScenario(cart, when: "has items").respond(.text("pen"))
        let reachedPassThrough = DispatchSemaphore(value: 0)
        let goOn = DispatchSemaphore(value: 0)
        // Consulted once no stub answered the GET: holds it there, its miss decided, the first time.
        let firstLook = Locked(true)
        stubs.passThrough(
            .custom("held after its stubs") { _ in
                let isFirst = firstLook.withLock { first in
                    defer { first = false }
                    return first
                }
                if isFirst {
                    reachedPassThrough.signal()
                    _ = goOn.wait(timeout: .now() + 600)
                }
                return false
            })
        let heldAnswer = Locked<String?>(nil)
        let heldDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            heldAnswer.withLock { $0 = answer(stubs, "https://h/cart") }
            heldDone.signal()
        }

        try #require(reachedPassThrough.wait(timeout: .now() + 600) == .success)
        #expect(stubs.status(for: request("POST", "https://h/cart")) == 201)  // moves the cart meanwhile
        goOn.signal()
        try #require(heldDone.wait(timeout: .now() + 600) == .success)

        // Reported, the miss would say the stub needs "has items" while the cart is in it.
        #expect(heldAnswer.current == "pen")
        #expect(failures.all.isEmpty)
    }

    // MARK: Every transport

    @Test(arguments: ScenarioTransport.allCases)
    func theCartIsEmptyUntilAPostAddsAnItem(_ transport: ScenarioTransport) async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let cart = stubs.scenario("cart")
        stubs.stub(.get, "/cart").inScenario(cart, when: .started).respond(.json(raw: "[]"))
        stubs.stub(.post, "/cart").inScenario(cart, when: .started, movingTo: "has items").respond(.status(201))
        stubs.stub(.get, "/cart").inScenario(cart, when: "has items").respond(.json(raw: #"["pen"]"#))
        let (client, stop) = try transport.client(stubs)
        defer { stop() }

        #expect(try await client.get("cart").text == "[]")
        #expect(try await client.post("cart", body: Data("pen".utf8)).statusCode == 201)
        #expect(try await client.get("cart").text == #"["pen"]"#)
        #expect(cart.state == "has items")
        #expect(failures.all.isEmpty)
    }

    @Test(arguments: ScenarioTransport.allCases)
    func aLoginChangesWhatMeAnswers(_ transport: ScenarioTransport) async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let session = stubs.scenario("session")
        stubs.stub(.get, "/me").inScenario(session, when: .started).respond(.status(401))
        stubs.stub(.post, "/login").inScenario(session, movingTo: "logged in").respond(.status(204))
        stubs.stub(.get, "/me").inScenario(session, when: "logged in").respond(.json(raw: #"{"name": "Ada"}"#))
        stubs.stub(.post, "/logout").inScenario(session, movingTo: .started).respond(.status(204))
        let (client, stop) = try transport.client(stubs)
        defer { stop() }

        await #expect(throws: HTTPClientError.self) { try await client.get("me") }
        _ = try await client.post("login")
        #expect(try await client.get("me").text == #"{"name": "Ada"}"#)
        _ = try await client.post("logout")
        await #expect(throws: HTTPClientError.self) { try await client.get("me") }
        #expect(session.state == .started)
        #expect(failures.all.isEmpty)
    }

    @Test func overTheServerAMissAnswers404WithTheStateTheStubNeeds() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let session = stubs.scenario("session")
        stubs.stub(.get, "/me").inScenario(session, when: "logged in").respond(.json(raw: #"{"name": "Ada"}"#))
        let server = try StubServer(stubs)
        defer { server.stop() }

        let (data, response) = try await URLSession(configuration: .ephemeral).data(from: server.baseURL.appendingPathComponent("me"))

        #expect(response.status == 404)
        #expect(
            String(decoding: data, as: UTF8.self).contains(
                #"matches, but scenario "session" is in state "Started", the stub needs "logged in""#))
        #expect(failures.all.count == 1)
    }
}
