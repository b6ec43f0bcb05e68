import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@Suite("MockURLSession under concurrency")
struct MockConcurrencyTests {
    private static let concurrentRequests = 200

    @Test func manyThreadsRecordEveryRequestAndCompleteEachOnce() throws {
        let session = MockURLSession()
        let client = HTTPClient(session: session)
        let iterations = 2_000
        for _ in 0..<iterations / 2 { session.enqueue(.status(201)) }
        let completions = Locked([Int](repeating: 0, count: iterations))
        let statuses = Locked([Int: Int]())

        DispatchQueue.concurrentPerform(iterations: iterations) { index in
            guard let target = URL(string: "https://example.com/items/\(index)") else { return }
            client.get(url: target) { result in
                completions.withLock { $0[index] += 1 }
                let status = (try? result.get().statusCode) ?? -1
                statuses.withLock { $0[status, default: 0] += 1 }
            }
            // Readers racing the writers must see consistent state, never crash.
            _ = session.lastURL
            _ = session.queuedResponseCount
        }

        #expect(completions.current.allSatisfy { $0 == 1 })
        #expect(session.requests.count == iterations)
        #expect(Set(session.requests.map(\.url.path)).count == iterations)
        #expect(statuses.current == [201: iterations / 2, 200: iterations / 2])
    }

    @Test func concurrentResumeAndCancelOfOneTaskCompleteItOnce() {
        for _ in 0..<200 {
            let session = MockURLSession()
            let count = Locked(0)
            let task = session.makeDataTask(with: URLRequest(url: URL(fileURLWithPath: "/"))) { _, _, _ in
                count.withLock { $0 += 1 }
            }
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                if index.isMultiple(of: 2) { task.resume() } else { task.cancel() }
            }
            #expect(count.current == 1)
        }
    }

    @Test func aRequestsHeadersFirstReadFromManyThreadsAtOnceAreTheSameForEach() {
        // Gathered on first use: the first readers race to gather them.
        let recorded = RecordedRequest(request("GET", "https://h/", headers: ["Accept": "application/json", "X-Trace": "7"]))
        let seen = CompletionRecorder<HTTPHeaders>()
        DispatchQueue.concurrentPerform(iterations: 64) { _ in seen.record(recorded.headers) }
        #expect(seen.allValues.count == 64)
        #expect(seen.allValues.allSatisfy { $0["accept"] == "application/json" && $0["x-trace"] == "7" })
    }

    @Test func oneRecordedRequestsHeadersReadFromManyThreadsAtOnceAreTheSameEverywhere() async throws {
        let session = MockURLSession()
        let client = HTTPClient(session: session)
        var headers: HTTPHeaders = [:]
        for index in 0..<30 { headers["X-Field-\(index)"] = "value \(index)" }
        _ = try await client.send(HTTPClient.Request(method: .get, url: testURL("https://h/items?a=1&b=2"), headers: headers))
        let request = try #require(session.requests.first)
        let seen = OutcomeRecorder()
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            let fields = request.headers
            let summary = (0..<30).map { fields["X-Field-\($0)"] ?? "missing" }.joined(separator: ",")
            seen.record(index, summary + "|" + request.queryItems.map { "\($0.name)=\($0.value ?? "")" }.joined(separator: "&"))
        }
        let expected = (0..<30).map { "value \($0)" }.joined(separator: ",") + "|a=1&b=2"
        #expect(Set(seen.outcomes.values.flatMap { $0 }) == [expected])
    }

    @Test func requestsHeadersAndQueryItemsReadWhileRequestsArriveAreEachTheRequestsOwn() async throws {
        let stubs = StubRegistry()
        stubs.stub(where: .header("X-Index")).respond(.text("ok"))
        let session = MockURLSession(stubs: stubs)
        let mismatches = OutcomeRecorder()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<50 {
                if worker.isMultiple(of: 2) {
                    let number = worker * 1000 + round
                    var request = URLRequest(url: testURL("https://h/items?n=\(number)"))
                    request.setValue("\(number)", forHTTPHeaderField: "X-Index")
                    session.makeDataTask(with: request) { _, _, _ in }.resume()
                } else {
                    for recorded in stubs.requests where recorded.headers["X-Index"] != recorded.queryItems.first?.value {
                        mismatches.record(worker * 1000 + round, recorded.description)
                    }
                }
            }
        }
        #expect(mismatches.outcomes.isEmpty)
        #expect(stubs.requests.count == 200)
    }

    @Test func aMockTaskResumedAndCancelledFromManyThreadsAtOnceCompletesOnce() async throws {
        let session = MockURLSession()
        session.nextData = Data("ok".utf8)
        let recorder = OutcomeRecorder()
        let tasks = (0..<Self.concurrentRequests).map { index in
            session.makeDataTask(with: URLRequest(url: testURL("https://h/\(index)"))) { data, _, error in
                recorder.record(index, OutcomeRecorder.outcome(data, error))
            }
        }
        DispatchQueue.concurrentPerform(iterations: tasks.count * 4) { turn in
            let task = tasks[turn / 4]
            if turn.isMultiple(of: 2) { task.resume() } else { task.cancel() }
        }
        #expect(recorder.outcomes.count == tasks.count)
        #expect(recorder.outcomes.values.allSatisfy { $0 == ["ok"] || $0 == ["cancelled"] })
    }

    @Test func heldMockTasksCancelledFromManyThreadsWhileReleasedCompleteOnceEach() async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        stubs.stub(.get, "/item/{n}").respond(.text("ok").held(by: gate))
        let session = MockURLSession(stubs: stubs)
        let recorder = OutcomeRecorder()
        let tasks = (0..<Self.concurrentRequests).map { index in
            session.makeDataTask(with: URLRequest(url: testURL("https://h/item/\(index)"))) { data, _, error in
                recorder.record(index, OutcomeRecorder.outcome(data, error))
            }
        }
        for task in tasks { task.resume() }
        DispatchQueue.concurrentPerform(iterations: tasks.count + 1) { turn in
            if turn == tasks.count / 2 { gate.release() }
            if turn < tasks.count, turn.isMultiple(of: 2) { tasks[turn].cancel() }
        }
        #expect(recorder.outcomes.count == tasks.count)
        #expect(recorder.outcomes.values.allSatisfy { $0 == ["ok"] || $0 == ["cancelled"] })
        #expect(recorder.outcomes.filter { !$0.key.isMultiple(of: 2) }.values.allSatisfy { $0 == ["ok"] })
    }

    @Test func nextDataChangedFromManyThreadsWhileRequestsRunAlwaysAnswersOneWholeValueSet() async throws {
        let session = MockURLSession()
        let values = (0..<8).map { String(repeating: Character(UnicodeScalar(UInt8(97 + $0))), count: 100 + $0) }
        session.nextData = Data(values[0].utf8)
        let answers = OutcomeRecorder()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<50 {
                if worker < 4 {
                    session.nextData = Data(values[(worker + round) % values.count].utf8)
                } else {
                    session.makeDataTask(with: URLRequest(url: testURL("https://h/\(worker)/\(round)"))) { data, _, _ in
                        answers.record(worker * 1000 + round, String(decoding: data ?? Data(), as: UTF8.self))
                    }.resume()
                }
            }
        }
        #expect(answers.outcomes.count == 200)
        #expect(answers.outcomes.values.allSatisfy { $0.count == 1 && values.contains($0[0]) })
    }

    @Test func nextResponseAndNextErrorChangedWhileRequestsRunAnswerOnlyValuesThatWereSet() async throws {
        let session = MockURLSession()
        let url = testURL("https://h/x")
        let statuses = [201, 202, 203, 204]
        let answers = OutcomeRecorder()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<50 {
                switch worker {
                case 0, 1:
                    session.nextResponse = HTTPURLResponse(
                        url: url, statusCode: statuses[(worker + round) % 4], httpVersion: nil, headerFields: nil)
                case 2:
                    session.nextError = round.isMultiple(of: 2) ? URLError(.timedOut) : nil
                default:
                    session.makeDataTask(with: URLRequest(url: url)) { _, response, error in
                        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                        answers.record(worker * 1000 + round, error.map { "error \(($0 as? URLError)?.code.rawValue ?? 0)" } ?? "\(status)")
                    }.resume()
                }
            }
        }
        let allowed = Set(["200", "error \(URLError.timedOut.rawValue)"] + statuses.map(String.init))
        #expect(answers.outcomes.count == 250)
        #expect(answers.outcomes.values.allSatisfy { $0.count == 1 && allowed.contains($0[0]) })
    }

    @Test func cannedAnswersCountsEveryRequestWhileNextDataIsChangedFromOtherThreads() async throws {
        let failures = OutcomeRecorder()
        let stubs = StubRegistry(reporting: .custom { message, _ in failures.record(failures.outcomes.count, message) })
        let session = MockURLSession(stubs: stubs)
        session.nextData = Data("first".utf8)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<50 {
                if worker < 2 {
                    session.nextData = Data("value \(worker) \(round)".utf8)
                } else {
                    session.makeDataTask(with: URLRequest(url: testURL("https://h/\(worker)/\(round)"))) { _, _, _ in }.resume()
                }
            }
        }
        #expect(session.cannedAnswers.calls.count == 300)
        #expect(stubs.verify(session.cannedAnswers, requested: .exactly(300)))
        #expect(failures.outcomes.isEmpty)
    }

    @Test func callCountAndVerifyCountEveryRequestMadeFromManyThreads() async throws {
        let failures = OutcomeRecorder()
        let stubs = StubRegistry(reporting: .custom { message, _ in failures.record(failures.outcomes.count, message) })
        let stub = stubs.stub(.get, "/item/{n}").respond(.text("ok"))
        let session = MockURLSession(stubs: stubs)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<50 {
                session.makeDataTask(with: URLRequest(url: testURL("https://h/item/\(worker)-\(round)"))) { _, _, _ in }.resume()
            }
        }
        #expect(stub.calls.count == 400)
        #expect(Set(stub.calls.map(\.path)).count == 400)
        #expect(stubs.verify(stub, requested: .exactly(400)))
        #expect(stubs.verify(requestsMatching: .path("/item/{n}"), count: .exactly(400)))
        #expect(failures.outcomes.isEmpty)
    }
}
