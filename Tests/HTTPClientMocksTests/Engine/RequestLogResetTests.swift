import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// `removeAllRecords()` and `reset()` empty the request log while requests are in flight: a
/// request answered after it neither returns to the log nor takes a later request's place, and
/// request numbers (which `verifyOrder` compares) count on across it.
@Suite("The request log emptied while requests are in flight")
struct RequestLogResetTests {
    @Test func aHeldRequestAnsweredAfterRemoveAllRecordsNeitherReturnsToTheLogNorTakesALaterRequestsPlace() async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        stubs.stub(.get, "/held").respond(.text("held").held(by: gate))
        stubs.stub(.get, "/later/{n}").respond(.text("later"))
        let session = MockURLSession(stubs: stubs)
        let held = (0..<3).map { _ in session.makeDataTask(with: URLRequest(url: testURL("https://h/held"))) { _, _, _ in } }
        for task in held { task.resume() }
        session.removeAllRecords()
        for number in 0..<3 { session.makeDataTask(with: URLRequest(url: testURL("https://h/later/\(number)"))) { _, _, _ in }.resume() }
        gate.release()
        #expect(session.requests.map(\.path) == ["/later/0", "/later/1", "/later/2"])
    }

    @Test func aHeldRequestAnsweredAfterResetNeitherReturnsToTheLogNorTakesALaterRequestsPlace() async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        stubs.stub(.get, "/held").respond(.text("held").held(by: gate))
        let session = MockURLSession(stubs: stubs)
        let held = (0..<3).map { _ in session.makeDataTask(with: URLRequest(url: testURL("https://h/held"))) { _, _, _ in } }
        for task in held { task.resume() }
        stubs.reset()
        stubs.stub(.get, "/later/{n}").respond(.text("later"))
        for number in 0..<3 { session.makeDataTask(with: URLRequest(url: testURL("https://h/later/\(number)"))) { _, _, _ in }.resume() }
        gate.release()
        #expect(stubs.requests.map(\.path) == ["/later/0", "/later/1", "/later/2"])
    }

    @Test func aQueuedHeldAnswerReleasedAfterRemoveAllRecordsLeavesNoCallNorRequestBehind() async throws {
        let session = MockURLSession()
        let gate = HeldResponse()
        session.enqueue(.text("held").held(by: gate))
        let recorder = OutcomeRecorder()
        session.makeDataTask(with: URLRequest(url: testURL("https://h/held"))) { data, _, error in
            recorder.record(0, OutcomeRecorder.outcome(data, error))
        }.resume()
        session.removeAllRecords()
        gate.release()
        #expect(recorder.outcomes == [0: ["held"]])
        #expect(session.requests.isEmpty)
        #expect(session.queuedAnswers.calls.isEmpty)
    }

    @Test func aRealSessionsImmediateAnswerWhoseOnRequestResetsTheLogLeavesOnlyTheLaterRequest() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/first").respond(.text("first")).onRequest { _ in stubs.reset() }
        let session = stubs.makeURLSession()
        _ = try await session.data(from: testURL("https://h/first"))
        stubs.stub(.get, "/later").respond(.text("later"))
        _ = try await session.data(from: testURL("https://h/later"))
        #expect(stubs.requests.map(\.path) == ["/later"])
    }

    /// Held answers released after `reset()` through a real `URLSession` reach their callers;
    /// the log holds only the later requests. The gate is released on every path (a wait that
    /// runs out included), so a failure is reported, never a test that waits forever.
    @Test func aHeldRequestOfARealSessionAnsweredAfterResetNeitherReturnsToTheLogNorTakesALaterRequestsPlace() async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        defer { gate.release() }
        stubs.stub(.get, "/held").respond(.text("held").held(by: gate))
        let session = stubs.makeURLSession()
        let held = Task { await OutcomeRecorder.outcomes(ofTasks: 3, on: session, path: "/held") { _, task in task.resume() } }
        do {
            try await gate.waitUntilHolding(3, timeout: .seconds(600))
        } catch {
            gate.release()
            _ = await held.value
            throw error
        }
        stubs.reset()
        stubs.stub(.get, "/later").respond(.text("later"))
        let later = await OutcomeRecorder.outcomes(ofTasks: 3, on: session, path: "/later") { _, task in task.resume() }
        gate.release()
        #expect(await held.value.values.allSatisfy { $0 == ["held"] })
        #expect(later.values.allSatisfy { $0 == ["later"] })
        #expect(stubs.requests.map(\.url.absoluteString).sorted() == (0..<3).map { "https://h/later?i=\($0)" })
    }

    @Test func removeAllRecordsRacingRequestsNeverShowsARequestTwiceNorLosesOneMadeAfterTheLastReset() async throws {
        let session = MockURLSession()
        session.nextData = Data("ok".utf8)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<100 {
                if worker == 0 {
                    session.removeAllRecords()
                } else {
                    session.makeDataTask(with: URLRequest(url: testURL("https://h/\(worker)/\(round)"))) { _, _, _ in }.resume()
                }
            }
        }
        let paths = session.requests.map(\.path)
        #expect(Set(paths).count == paths.count)
        session.removeAllRecords()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for round in 0..<25 {
                session.makeDataTask(with: URLRequest(url: testURL("https://h/after/\(worker)/\(round)"))) { _, _, _ in }.resume()
            }
        }
        #expect(Set(session.requests.map(\.path)).count == 100)
        #expect(session.cannedAnswers.calls.count == 100)
    }

    /// A stub's `calls` keep their sequence numbers when the log is emptied, so the numbers
    /// count on: were they to restart at 0, `verifyOrder` would compare numbers from before and
    /// after the reset (a false failure, or a false pass when the order really was wrong).
    @Test func verifyOrderHoldsForAStubRequestedAfterRemoveAllRecords() async throws {
        let failures = OutcomeRecorder()
        let stubs = StubRegistry(reporting: .custom { message, _ in failures.record(failures.outcomes.count, message) })
        let first = stubs.stub(.get, "/first").respond(.text("1"))
        let second = stubs.stub(.get, "/second").respond(.text("2"))
        let session = MockURLSession(stubs: stubs)
        stubs.stub(.get, "/other").respond(.text("o"))
        for path in ["/other", "/other", "/first"] {
            session.makeDataTask(with: URLRequest(url: testURL("https://h\(path)"))) { _, _, _ in }.resume()
        }
        session.removeAllRecords()
        session.makeDataTask(with: URLRequest(url: testURL("https://h/second"))) { _, _, _ in }.resume()
        // Numbers restarted with the log would read /second (0) as before /first (2).
        #expect(stubs.verifyOrder(first, second))
        #expect(failures.outcomes.isEmpty)
        // And the order the other way round is still a failure.
        #expect(!stubs.verifyOrder(second, first))
    }

    @Test func requestNumbersCountOnAcrossAReset() async throws {
        let stubs = StubRegistry(reporting: .custom { _, _ in })
        let session = MockURLSession(stubs: stubs)
        stubs.stub(.get, "/a").respond(.text("a"))
        for _ in 0..<3 { session.makeDataTask(with: URLRequest(url: testURL("https://h/a"))) { _, _, _ in }.resume() }
        stubs.reset()
        let later = stubs.stub(.get, "/b").respond(.text("b"))
        session.makeDataTask(with: URLRequest(url: testURL("https://h/b"))) { _, _, _ in }.resume()
        #expect(later.calls.map(\.sequenceNumber) == [3])
        #expect(stubs.requests.map(\.sequenceNumber) == [3])
    }
}
