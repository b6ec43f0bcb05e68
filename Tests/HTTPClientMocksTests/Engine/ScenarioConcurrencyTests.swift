import Foundation
import HTTPClient
import HTTPClientMocks
@_spi(Engine) import HTTPClientStubs
import Testing

/// Scenarios with requests racing through every transport: each request sees one state, moves
/// happen once, and what the reports say matches what the stubs did.
@Suite("Scenarios under concurrency, on every transport")
struct ScenarioConcurrencyTests {
    let failures = CollectedFailures()

    /// `count` concurrent GETs of `path` over `transport`, each answer's body as text ("error"
    /// for a failure or an answer that is not 2xx).
    private func race(_ count: Int, _ path: String, over transport: ScenarioTransport, stubs: StubRegistry) async throws -> [String] {
        let (client, stop) = try transport.client(stubs)
        defer { stop() }
        return await withTaskGroup(of: String.self) { group in
            for _ in 0..<count {
                group.addTask {
                    (try? await client.get(path).text) ?? "error"
                }
            }
            var answers: [String] = []
            for await answer in group { answers.append(answer) }
            return answers
        }
    }

    @Test(arguments: ScenarioTransport.allCases)
    func ofManyRacingRequestsExactlyOneTakesTheMoveOnEveryTransport(_ transport: ScenarioTransport) async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let token = stubs.scenario("token")
        let first = stubs.stub(.get, "/token").inScenario(token, when: .started, movingTo: "taken").respond(.text("first"))
        let later = stubs.stub(.get, "/token").inScenario(token, when: "taken").respond(.text("later"))

        let answers = try await race(48, "token", over: transport, stubs: stubs)

        #expect(answers.filter { $0 == "first" }.count == 1)
        #expect(answers.filter { $0 == "later" }.count == 47)
        #expect(first.callCount == 1 && later.callCount == 47)
        #expect(token.state == "taken")
        #expect(stubs.unmatchedRequests.isEmpty)
        #expect(failures.all.isEmpty)
    }

    @Test(arguments: ScenarioTransport.allCases)
    func racingRequestsWalkAChainOfStatesOneStepEachOnEveryTransport(_ transport: ScenarioTransport) async throws {
        let steps = 24
        let stubs = StubRegistry(reporting: failures.reporting)
        let walk = stubs.scenario("walk")
        walk.state = "0"
        for step in 0..<steps {
            stubs.stub(.get, "/step").inScenario(walk, when: "\(step)", movingTo: "\(step + 1)").respond(.text("\(step)"))
        }
        stubs.stub(.get, "/step").inScenario(walk, when: "\(steps)").respond(.text("end")).allowingUnused()

        let answers = try await race(steps, "step", over: transport, stubs: stubs)

        #expect(answers.sorted() == (0..<steps).map(String.init).sorted())
        #expect(walk.state == "\(steps)")
        #expect(failures.all.isEmpty)
    }

    @Test(arguments: ScenarioTransport.allCases)
    func resettingWhileRequestsFlyGivesEachRequestOneStatesAnswer(_ transport: ScenarioTransport) async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let token = stubs.scenario("token")
        let first = stubs.stub(.get, "/token").inScenario(token, when: .started, movingTo: "taken").respond(.text("first"))
        let later = stubs.stub(.get, "/token").inScenario(token, when: "taken").respond(.text("later"))
        let resets = Locked(0)
        let (client, stop) = try transport.client(stubs)
        defer { stop() }

        let answers = await withTaskGroup(of: String?.self) { group in
            for index in 0..<60 {
                group.addTask {
                    if index % 4 == 0 {
                        stubs.resetScenarios()
                        resets.withLock { $0 += 1 }
                        return nil
                    }
                    return (try? await client.get("token").text) ?? "no answer"
                }
            }
            var answers: [String] = []
            for await answer in group { if let answer { answers.append(answer) } }
            return answers
        }

        // Every request was answered by one of the two stubs, in the state it found, and the
        // stubs' calls say which: never a miss, never a request answered twice.
        #expect(answers.count == 45)
        #expect(answers.allSatisfy { $0 == "first" || $0 == "later" })
        #expect(first.callCount == answers.filter { $0 == "first" }.count)
        #expect(later.callCount == answers.filter { $0 == "later" }.count)
        #expect((1...(resets.current + 1)).contains(first.callCount))
        #expect(stubs.unmatchedRequests.isEmpty)
        #expect(failures.all.isEmpty)
    }

    @Test(arguments: ScenarioTransport.allCases)
    func aStubWhoseStateIsNeverReachedIsReportedAsUnusedAndItsMissesSayWhy(_ transport: ScenarioTransport) async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let flow = stubs.scenario("flow")
        stubs.stub(.get, "/go").inScenario(flow, when: .started, movingTo: "middle").respond(.text("go"))
        let never = stubs.stub(.get, "/done").inScenario(flow, when: "never").respond(.text("done"))

        let answers = try await race(8, "go", over: transport, stubs: stubs) + (try await race(4, "done", over: transport, stubs: stubs))

        #expect(answers.filter { $0 == "go" }.count == 1)
        #expect(never.callCount == 0)
        #expect(stubs.unmatchedRequests.count == 11)
        let misses = failures.all
        #expect(misses.count == 11)
        // Each miss names the state the scenario was in when it was judged, never the one needed.
        #expect(misses.allSatisfy { $0.contains(#"scenario "flow" is in state "middle""#) })
        #expect(!misses.contains { $0.contains(#"is in state "never""#) })

        let before = failures.all.count
        stubs.verify()
        let verification = failures.all.dropFirst(before).joined(separator: "\n")
        #expect(verification.contains("/done"))
    }

    @Test func aMissReportedWhileTheStateFlipsNeverSaysTheStateItNeedsIsTheStateItIsIn() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let cart = stubs.scenario("cart")
        let items = stubs.stub(.get, "/cart").inScenario(cart, when: "has items").respond(.text("pen"))
        let session = MockURLSession(stubs: stubs)

        let answered = await withTaskGroup(of: Bool?.self) { group in
            for index in 0..<400 {
                group.addTask {
                    if index % 2 == 0 {
                        cart.state = index % 4 == 0 ? "has items" : .started
                        return nil
                    }
                    return (try? await session.data(for: request("GET", "https://h/cart"))) != nil
                }
            }
            var answered: [Bool] = []
            for await result in group { if let result { answered.append(result) } }
            return answered
        }

        let misses = failures.all
        #expect(answered.filter { $0 }.count == items.callCount)
        #expect(misses.count == answered.filter { !$0 }.count)
        #expect(!misses.contains { $0.contains(#"is in state "has items", the stub needs "has items""#) })
        #expect(misses.allSatisfy { $0.contains(#"is in state "Started", the stub needs "has items""#) })
    }

    // MARK: The server's own judgements

    @Test func aPostWithABodyOverTheServerMovesItsScenarioOnce() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let upload = stubs.scenario("upload")
        let one = stubs.stub(.post, "/upload").inScenario(upload, when: .started, movingTo: "one").respond(.status(201))
        let two = stubs.stub(.post, "/upload").inScenario(upload, when: "one", movingTo: "two").respond(.status(202))
        let server = try StubServer(stubs)
        defer { server.stop() }
        var post = URLRequest(url: server.baseURL.appendingPathComponent("upload"))
        post.httpMethod = "POST"
        post.httpBody = Data(repeating: 0x61, count: 100_000)

        let (_, response) = try await URLSession(configuration: .ephemeral).data(for: post)

        #expect(response.status == 201)
        #expect(upload.state == "one")
        #expect(one.callCount == 1 && two.callCount == 0)
        #expect(failures.all.isEmpty)
    }

    @Test func aHeadAnsweredByAGetStubMovesItsScenarioOnce() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let page = stubs.scenario("page")
        let first = stubs.stub(.get, "/page").inScenario(page, when: .started, movingTo: "seen").respond(.text("first"))
        let second = stubs.stub(.get, "/page").inScenario(page, when: "seen", movingTo: "twice").respond(.text("second!"))
        let server = try StubServer(stubs)
        defer { server.stop() }

        let connection = try RawConnection(port: server.port)
        connection.send("HEAD /page HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try await offThePool { try connection.readResponse(toHead: true) }

        #expect(head.status == 200)
        #expect(head.values("Content-Length") == ["5"])
        #expect(page.state == "seen")
        #expect(first.callCount == 1 && second.callCount == 0)
    }

    @Test func pipelinedRequestsMoveTheScenarioInTheOrderTheyWereSent() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let cart = stubs.scenario("cart")
        stubs.stub(.get, "/cart").inScenario(cart, when: .started).respond(.text("empty"))
        stubs.stub(.post, "/cart").inScenario(cart, movingTo: "has items").respond(.status(201))
        stubs.stub(.delete, "/cart").inScenario(cart, movingTo: .started).respond(.status(204))
        stubs.stub(.get, "/cart").inScenario(cart, when: "has items").respond(.text("pen"))
        let server = try StubServer(stubs)
        defer { server.stop() }

        let connection = try RawConnection(port: server.port)
        var pipeline = ""
        let script = ["GET", "POST", "GET", "DELETE", "GET", "POST", "GET"]
        for method in script { pipeline += "\(method) /cart HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n" }
        connection.send(pipeline)
        let answers = try await offThePool {
            try script.map { _ in
                let response = try connection.readResponse()
                return response.status == 200 ? response.text : "\(response.status)"
            }
        }

        #expect(answers == ["empty", "201", "pen", "204", "empty", "201", "pen"])
        #expect(failures.all.isEmpty)
    }

    @Test func aFaultAnsweredOverTheServerStillMovesItsScenario() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let flaky = stubs.scenario("flaky")
        stubs.stub(.get, "/feed").inScenario(flaky, when: .started, movingTo: "recovered").respond(.fault(.connectionReset))
        stubs.stub(.get, "/feed").inScenario(flaky, when: "recovered").respond(.text("ok"))
        let server = try StubServer(stubs)
        defer { server.stop() }

        let broken = try RawConnection(port: server.port)
        broken.send("GET /feed HTTP/1.1\r\nHost: x\r\n\r\n")
        let ending = try await offThePool { broken.readToEnd() }
        let retry = try RawConnection(port: server.port)
        retry.send("GET /feed HTTP/1.1\r\nHost: x\r\n\r\n")
        let answer = try await offThePool { try retry.readResponse() }

        #expect(ending.bytes.isEmpty && ending.ending == .reset)
        #expect(answer.text == "ok")
        #expect(flaky.state == "recovered")
    }

    @Test func aDisconnectDuringTheBodyMovesTheScenarioOnce() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let upload = stubs.scenario("upload")
        let broken = stubs.stub(.post, "/upload").inScenario(upload, when: .started, movingTo: "failed once")
            .respond(.fault(.disconnectDuringRequestBody))
        let next = stubs.stub(.post, "/upload").inScenario(upload, when: "failed once", movingTo: "done").respond(.status(201))
        let server = try StubServer(stubs)
        defer { server.stop() }

        let connection = try RawConnection(port: server.port)
        connection.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
        let ending = try await offThePool { connection.readToEnd() }

        #expect(ending.ending == .reset)
        #expect(upload.state == "failed once")
        #expect(broken.callCount == 1 && next.callCount == 0)
    }
}
