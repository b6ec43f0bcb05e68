import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// A real `URLSession` over the stubs' URLProtocol, hundreds of tasks at once, cancelled,
/// suspended, invalidated or cancelled by their own delegate while they are answered: each task
/// ends exactly once, with its own answer or cancelled, and nothing traps. Immediate answers
/// (given inside `startLoading`) leave the narrowest window, so most tests use them.
@Suite("URLProtocol transport: tasks cancelled, suspended or invalidated while they are answered")
struct URLProtocolRaceTests {
    private static let concurrentRequests = 200

    // MARK: Cancelled right after resume

    @Test func immediateAnswersCancelledRightAfterResumeEachEndOnceAnsweredOrCancelled() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/item").respond(.text("ok"))
        let outcomes = await OutcomeRecorder.outcomes(ofTasks: Self.concurrentRequests, on: stubs.makeURLSession(), path: "/item") {
            index, task in
            task.resume()
            if index.isMultiple(of: 2) { task.cancel() }
        }
        Self.expectEachEndedOnce(outcomes, cancelledMayAlsoBe: "ok")
    }

    @Test func heldAnswersCancelledRightAfterResumeEachEndOnceAndTheRestAreDeliveredOnRelease() async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        stubs.stub(.get, "/item").respond(.text("ok").held(by: gate))
        let session = stubs.makeURLSession()
        let outcomes = await withTaskGroup(of: [Int: [String]].self) { group in
            group.addTask {
                await OutcomeRecorder.outcomes(ofTasks: Self.concurrentRequests, on: session, path: "/item") { index, task in
                    task.resume()
                    if index.isMultiple(of: 2) { task.cancel() }
                }
            }
            // Released once one request waits: the rest pass the open gate at once.
            try? await gate.waitUntilHolding(1, timeout: .seconds(600))
            gate.release()
            return await group.reduce(into: [:]) { $0.merge($1) { $1 } }
        }
        Self.expectEachEndedOnce(outcomes, cancelledMayAlsoBe: "ok")
    }

    @Test func answersWithLatencyCancelledRightAfterResumeEachEndOnce() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/item").respond(.text("ok").delayed(by: 0.001))
        let outcomes = await OutcomeRecorder.outcomes(ofTasks: Self.concurrentRequests, on: stubs.makeURLSession(), path: "/item") {
            index, task in
            task.resume()
            if index.isMultiple(of: 2) { task.cancel() }
        }
        Self.expectEachEndedOnce(outcomes, cancelledMayAlsoBe: "ok")
    }

    @Test func streamedAnswersCancelledRightAfterResumeEachEndOnceWithTheWholeBodyOrCancelled() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/item").respond(.streamed([.text("o"), .pause(0.001), .text("k")]))
        let outcomes = await OutcomeRecorder.outcomes(ofTasks: Self.concurrentRequests, on: stubs.makeURLSession(), path: "/item") {
            index, task in
            task.resume()
            if index.isMultiple(of: 2) { task.cancel() }
        }
        Self.expectEachEndedOnce(outcomes, cancelledMayAlsoBe: "ok")
    }

    @Test func immediateFailuresCancelledRightAfterResumeEachEndOnce() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/item").respond(.error(URLError(.notConnectedToInternet)))
        let outcomes = await OutcomeRecorder.outcomes(ofTasks: Self.concurrentRequests, on: stubs.makeURLSession(), path: "/item") {
            index, task in
            task.resume()
            if index.isMultiple(of: 2) { task.cancel() }
        }
        let failure = "error \(URLError(.notConnectedToInternet))"
        #expect(outcomes.count == Self.concurrentRequests)
        #expect(outcomes.values.allSatisfy { $0.count == 1 && ($0[0] == "cancelled" || $0[0].hasPrefix("error")) })
        #expect(outcomes.filter { !$0.key.isMultiple(of: 2) }.values.allSatisfy { $0[0] != "cancelled" }, "\(failure)")
    }

    @Test func immediateRedirectsCancelledRightAfterResumeEachEndOnce() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/from").respond(.status(302, headers: ["Location": "/to"]))
        stubs.stub(.get, "/to").respond(.text("ok"))
        let outcomes = await OutcomeRecorder.outcomes(ofTasks: Self.concurrentRequests, on: stubs.makeURLSession(), path: "/from") {
            index, task in
            task.resume()
            if index.isMultiple(of: 2) { task.cancel() }
        }
        Self.expectEachEndedOnce(outcomes, cancelledMayAlsoBe: "ok")
    }

    // MARK: Suspended and resumed

    /// A platform limit on Linux (README's Platforms table): swift-corelibs-foundation traps now
    /// and then when `resume()` comes on a task whose protocol has finished loading but whose
    /// completion has not run yet (it finds the protocol gone and fails a task that has left the
    /// session's registry). Any URLProtocol that answers at once opens that window, and a test
    /// cannot catch a trap, so the test runs where Foundation has no such window.
    @Test(.enabled(if: !corelibsTrapsOnResumeRightAfterAProtocolFinished, "a corelibs trap: README's Platforms table"))
    func immediateAnswersSuspendedAndResumedRightAwayEachEndOnceAnswered() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/item").respond(.text("ok"))
        let outcomes = await OutcomeRecorder.outcomes(ofTasks: Self.concurrentRequests, on: stubs.makeURLSession(), path: "/item") {
            _, task in
            task.resume()
            task.suspend()
            task.resume()
        }
        #expect(outcomes.count == Self.concurrentRequests)
        #expect(outcomes.values.allSatisfy { $0 == ["ok"] })
    }

    /// The same corelibs trap: corelibs does not pause a data task, so the release finishes the
    /// protocol while the task counts as suspended, and the `resume()` after it can come in the
    /// window (a soak on a loaded machine crashed there).
    @Test(.enabled(if: !corelibsTrapsOnResumeRightAfterAProtocolFinished, "a corelibs trap: README's Platforms table"))
    func aHeldAnswerOfASuspendedTaskIsDeliveredOnceWhenTheTaskIsResumedAfterRelease() async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        stubs.stub(.get, "/item").respond(.text("ok").held(by: gate))
        let session = stubs.makeURLSession()
        let recorder = OutcomeRecorder()
        let task = session.dataTask(with: testURL("https://h/item")) { data, _, error in
            recorder.record(0, OutcomeRecorder.outcome(data, error))
        }
        task.resume()
        try await gate.waitUntilHolding(1, timeout: .seconds(600))
        task.suspend()
        gate.release()
        task.resume()
        try await recorder.waitUntil(count: 1)
        #expect(recorder.outcomes == [0: ["ok"]])
    }

    // MARK: Ended by the session, its delegate or the registry going

    @Test func aDelegateThatCancelsTasksOnTheResponseOfImmediateAnswersGetsOneCompletionPerTask() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/item").respond(.text("ok"))
        let configuration = URLSessionConfiguration.ephemeral
        stubs.install(in: configuration)
        let delegate = CancellingDelegate()
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        for index in 0..<Self.concurrentRequests {
            let task = session.dataTask(with: testURL("https://h/item?i=\(index)"))
            task.taskDescription = "\(index)"
            task.resume()
        }
        try await delegate.completions.waitUntil(count: Self.concurrentRequests)
        #expect(delegate.completions.outcomes.count == Self.concurrentRequests)
        #expect(delegate.completions.outcomes.values.allSatisfy { $0 == ["cancelled"] || $0 == ["finished"] })
        session.invalidateAndCancel()
    }

    @Test func invalidateAndCancelWithHundredsOfImmediateAnswersInFlightEndsEachTaskOnce() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/item").respond(.text("ok"))
        let session = stubs.makeURLSession()
        let recorder = OutcomeRecorder()
        // corelibs traps on a task made after invalidation: every task is made first.
        let tasks = (0..<Self.concurrentRequests).map { index in
            session.dataTask(with: testURL("https://h/item?i=\(index)")) { data, _, error in
                recorder.record(index, OutcomeRecorder.outcome(data, error))
            }
        }
        for (index, task) in tasks.enumerated() {
            task.resume()
            if index == tasks.count / 2 { session.invalidateAndCancel() }
        }
        try await recorder.waitUntil(count: tasks.count)
        let outcomes = recorder.outcomes
        #expect(outcomes.count == Self.concurrentRequests)
        #expect(outcomes.values.allSatisfy { $0.count == 1 && ["ok", "cancelled"].contains($0[0]) })
    }

    /// Misuse the documentation warns of (keep the registry alive as long as the session):
    /// still, every task ends once and nothing traps.
    @Test func letTheRegistryGoWhileHeldRequestsWaitEveryTaskStillEndsOnce() async throws {
        let recorder = OutcomeRecorder()
        var tasks: [URLSessionDataTask] = []
        let gate = HeldResponse()
        do {
            let stubs = StubRegistry()
            stubs.stub(.get, "/item").respond(.text("ok").held(by: gate))
            let session = stubs.makeURLSession()
            for index in 0..<20 {
                let task = session.dataTask(with: testURL("https://h/item")) { data, _, error in
                    recorder.record(index, OutcomeRecorder.outcome(data, error))
                }
                task.resume()
                tasks.append(task)
            }
            try await gate.waitUntilHolding(20, timeout: .seconds(600))
        }
        for task in tasks.prefix(10) { task.cancel() }
        gate.release()
        try await recorder.waitUntil(count: 20)
        let outcomes = recorder.outcomes
        #expect((0..<10).allSatisfy { outcomes[$0] == ["cancelled"] })
        #expect((10..<20).allSatisfy { outcomes[$0]?.count == 1 })
    }

    // MARK: Hundreds at once, each its own answer

    @Test func computedAnswersReadingTheirRequestsHeadersWhileReportsAndReadersDoAnswerEachItsOwn() async throws {
        let reports = OutcomeRecorder()
        let stubs = StubRegistry(reporting: .custom { message, _ in reports.record(reports.outcomes.count, message) })
        stubs.stub(.get, "/item").respond(.computed { .text($0.headers["X-Index"] ?? "none") })
        let session = stubs.makeURLSession()
        let recorder = OutcomeRecorder()
        for index in 0..<Self.concurrentRequests {
            var request = URLRequest(url: testURL(index.isMultiple(of: 4) ? "https://h/missing" : "https://h/item"))
            request.setValue("\(index)", forHTTPHeaderField: "X-Index")
            session.dataTask(with: request) { data, _, error in recorder.record(index, OutcomeRecorder.outcome(data, error)) }.resume()
            if index.isMultiple(of: 10) { _ = stubs.requests.map { $0.headers["X-Index"] } }
        }
        try await recorder.waitUntil(count: Self.concurrentRequests)
        for (index, ends) in recorder.outcomes {
            if index.isMultiple(of: 4) {
                #expect(ends.count == 1 && ends[0].hasPrefix("error"), "request \(index): \(ends)")
            } else {
                #expect(ends == ["\(index)"])
            }
        }
        #expect(stubs.unmatchedRequests.map { $0.request.headers["X-Index"] ?? "none" }.sorted() == (0..<50).map { "\($0 * 4)" }.sorted())
    }

    @Test func requestsMatchedByTheirHeaderFromManyThreadsThroughARealSessionEachReachTheirOwnStub() async throws {
        let stubs = StubRegistry()
        for index in 0..<20 { stubs.stub(where: .header("X-Index", "\(index)")).respond(.text("\(index)")) }
        let session = stubs.makeURLSession()
        let recorder = OutcomeRecorder()
        for index in 0..<Self.concurrentRequests {
            var request = URLRequest(url: testURL("https://h/item"))
            request.setValue("\(index % 20)", forHTTPHeaderField: "X-Index")
            session.dataTask(with: request) { data, _, error in recorder.record(index, OutcomeRecorder.outcome(data, error)) }.resume()
        }
        try await recorder.waitUntil(count: Self.concurrentRequests)
        #expect(recorder.outcomes == Dictionary(uniqueKeysWithValues: (0..<Self.concurrentRequests).map { ($0, ["\($0 % 20)"]) }))
        #expect(stubs.requests.allSatisfy { $0.headers["X-Index"] != nil })
    }

    @Test func theLogHoldsAnImmediateAnswersPathParametersAndSourceWhenItsCompletionRuns() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/item/{id}").respond(.text("ok"))
        let session = stubs.makeURLSession()
        let recorder = OutcomeRecorder()
        for index in 0..<50 {
            session.dataTask(with: testURL("https://h/item/\(index)")) { _, _, _ in
                let logged = stubs.requests.first { $0.path == "/item/\(index)" }
                recorder.record(index, "\(logged?.pathParameters["id"] ?? "none") \(logged?.answerSource.map { "\($0)" } ?? "none")")
            }.resume()
        }
        try await recorder.waitUntil(count: 50)
        #expect(recorder.outcomes == Dictionary(uniqueKeysWithValues: (0..<50).map { ($0, ["\($0) a stub"]) }))
    }

    // MARK: Support

    /// Every task ended exactly once: odd ones answered `ok`, even ones cancelled or `ok`.
    private static func expectEachEndedOnce(_ outcomes: [Int: [String]], cancelledMayAlsoBe answer: String) {
        #expect(outcomes.count == concurrentRequests)
        for (index, ends) in outcomes.sorted(by: { $0.key < $1.key }) {
            let allowed = index.isMultiple(of: 2) ? ["cancelled", answer] : [answer]
            #expect(ends.count == 1 && allowed.contains(ends[0]), "task \(index) ended with \(ends)")
        }
    }
}

/// A delegate that cancels every task on its response (corelibs ignores the response
/// disposition of a URLProtocol's task, so it cancels the task itself), and records how each ended.
// @unchecked: its recorders lock themselves.
private final class CancellingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let completions = OutcomeRecorder()
    let bodies = OutcomeRecorder()

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        dataTask.cancel()
        completionHandler(.cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        bodies.record(Int(dataTask.taskDescription ?? "") ?? -1, String(decoding: data, as: UTF8.self))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let outcome = error.map { (($0 as? URLError)?.code == .cancelled) ? "cancelled" : "error \($0)" } ?? "finished"
        completions.record(Int(task.taskDescription ?? "") ?? -1, outcome)
    }
}
