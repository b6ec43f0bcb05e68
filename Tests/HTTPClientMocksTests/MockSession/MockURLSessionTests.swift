import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

private func url(_ string: String) -> URL {
    guard let url = URL(string: string) else { preconditionFailure("bad test URL \(string)") }
    return url
}

/// Calls the session directly, as any code holding a `URLSessionProtocol` would.
private func load(_ session: MockURLSession, _ target: String) -> CompletionRecorder<Delivery> {
    let recorder = CompletionRecorder<Delivery>()
    session.makeDataTask(with: URLRequest(url: url(target))) { data, response, error in
        recorder.record(Delivery(data: data, response: response as? HTTPURLResponse, error: error))
    }.resume()
    return recorder
}

struct Delivery: Sendable {
    let data: Data?
    let response: HTTPURLResponse?
    let error: (any Error)?
}

@Suite("MockURLSession")
struct MockURLSessionTests {
    let session = MockURLSession()

    @Test func withNothingSetTheAnswerIs200AndAnEmptyBodyForTheRequestURL() throws {
        let delivery = try #require(load(session, "https://example.com/a").value)
        #expect(delivery.response?.statusCode == 200)
        #expect(delivery.response?.url == url("https://example.com/a"))
        #expect(delivery.data == Data())
        #expect(delivery.error == nil)
    }

    @Test func repeatedHeaderFieldsArriveAsOneFieldUnderTheFirstSpellingWithTheValuesJoined() throws {
        var headers: HTTPHeaders = [:]
        headers.add(name: "X-Tag", value: "a")
        headers.add(name: "x-tag", value: "b")
        session.enqueue(.status(200, headers: headers))
        let fields = try #require(load(session, "https://example.com/").value?.response?.allHeaderFields as? [String: String])
        #expect(fields.filter { $0.key.lowercased() == "x-tag" } == ["X-Tag": "a, b"])
    }

    @Test func nextDataIsDeliveredWithA200() throws {
        session.nextData = Data("x".utf8)
        let delivery = try #require(load(session, "https://example.com/").value)
        #expect(delivery.data == Data("x".utf8))
        #expect(delivery.response?.statusCode == 200)
    }

    @Test func nextErrorIsDeliveredWithoutAnInventedResponse() throws {
        session.nextError = URLError(.timedOut)
        let delivery = try #require(load(session, "https://example.com/").value)
        #expect((delivery.error as? URLError)?.code == .timedOut)
        #expect(delivery.response == nil)
    }

    @Test func nextValuesPersistUntilChanged() throws {
        session.nextData = Data("same".utf8)
        #expect(load(session, "https://example.com/1").value?.data == Data("same".utf8))
        #expect(load(session, "https://example.com/2").value?.data == Data("same".utf8))
    }

    @Test func queuedResultsAreServedFirstInFIFOOrder() throws {
        session.nextData = Data("fallback".utf8)
        session.enqueue(.status(503), .text("ok"))
        #expect(session.queuedResponseCount == 2)
        #expect(load(session, "https://example.com/").value?.response?.statusCode == 503)
        #expect(load(session, "https://example.com/").value?.data == Data("ok".utf8))
        #expect(load(session, "https://example.com/").value?.data == Data("fallback".utf8))
        #expect(session.queuedResponseCount == 0)
    }

    @Test func helpersBuildStatusHeadersBodyJSONAndErrors() throws {
        struct Item: Codable, Equatable { let id: Int }
        session.enqueue(
            .status(204, headers: ["X-Trace": "t1"]),
            try .json(Item(id: 3), status: 201),
            .error(URLError(.cannotFindHost)),
            .error(CocoaError(.fileNoSuchFile)))
        let noContent = try #require(load(session, "https://example.com/").value)
        #expect(noContent.response?.statusCode == 204)
        #expect(noContent.response?.value(forHTTPHeaderField: "x-trace") == "t1")

        let created = try #require(load(session, "https://example.com/").value)
        #expect(created.response?.statusCode == 201)
        #expect(created.response?.value(forHTTPHeaderField: "content-type") == "application/json")
        #expect(try JSONDecoder().decode(Item.self, from: #require(created.data)) == Item(id: 3))

        #expect((load(session, "https://example.com/").value?.error as? URLError)?.code == .cannotFindHost)
        #expect(load(session, "https://example.com/").value?.error is CocoaError)
    }

    @Test func recordsEveryRequestInOrder() {
        _ = load(session, "https://example.com/1")
        _ = load(session, "https://example.com/2")
        #expect(session.requests.map(\.url) == [url("https://example.com/1"), url("https://example.com/2")])
        #expect(session.lastURL == url("https://example.com/2"))
        #expect(session.requests.last?.url == url("https://example.com/2"))
    }

    @Test func recordsTheRequestWhenTheTaskIsCreatedNotWhenResumed() {
        _ = session.makeDataTask(with: URLRequest(url: url("https://example.com/")), completionHandler: { _, _, _ in })
        #expect(session.lastURL == url("https://example.com/"))
    }

    @Test func nextDataTaskIsHandedOutOnceThenReplaced() {
        let mine = MockURLSessionDataTask()
        session.nextDataTask = mine
        let first = session.makeDataTask(with: URLRequest(url: url("https://example.com/")), completionHandler: { _, _, _ in })
        let second = session.makeDataTask(with: URLRequest(url: url("https://example.com/")), completionHandler: { _, _, _ in })
        #expect(first === mine)
        #expect(second !== mine)
        #expect(mine.originalRequest?.url == url("https://example.com/"))
    }

    @Test func removeAllRecordsForgetsRequestsAndQueue() {
        session.enqueue(.status(500))
        _ = load(session, "https://example.com/")
        session.enqueue(.status(500))
        session.removeAllRecords()
        #expect(session.requests.isEmpty)
        #expect(session.queuedResponseCount == 0)
    }

    @Test func removeAllRecordsForgetsTheCallsOfTheSessionsOwnAnswers() {
        session.nextData = Data("canned".utf8)
        _ = load(session, "https://example.com/canned")
        session.nextData = nil
        _ = load(session, "https://example.com/default")
        #expect(session.cannedAnswers.callCount == 1)
        session.removeAllRecords()
        #expect(session.cannedAnswers.callCount == 0)
        #expect(session.stubs.requests.isEmpty)
        _ = load(session, "https://example.com/again")
        #expect(session.requests.count == 1)
    }

    @Test func aRequestAnsweredAfterTheLogWasEmptiedLeavesTheNewLogAlone() {
        let stubs = StubRegistry()
        let session = MockURLSession(stubs: stubs)
        stubs.stub(.get, "/later").respond(.text("later"))
        stubs.stub(.get, "/first").respond(.text("first")).onRequest { _ in
            // While /first is being answered, the log is emptied and /later takes its place.
            session.removeAllRecords()
            _ = load(session, "https://example.com/later")
        }
        _ = load(session, "https://example.com/first")
        #expect(stubs.requests.map(\.path) == ["/later"])
    }

    @Test func aRequestAnsweredAfterTheRegistryWasResetLeavesTheNewLogAlone() {
        session.stubs.stub(.get, "/first").onRequest { [session] _ in
            // Reset while /first is being answered; /later gets the session's default answer.
            session.stubs.reset()
            _ = load(session, "https://example.com/later")
        }
        _ = load(session, "https://example.com/first")
        #expect(session.requests.map(\.path) == ["/later"])
    }

    @Test func nextDataChangedWhileRequestsRunAnswersEachWithAValueThatWasSet() {
        session.nextData = Data("a".utf8)
        let bodies = CompletionRecorder<Data?>()
        DispatchQueue.concurrentPerform(iterations: 200) { [session] iteration in
            if iteration.isMultiple(of: 2) {
                session.nextData = Data((iteration.isMultiple(of: 4) ? "a" : "b").utf8)
            } else {
                bodies.record(load(session, "https://example.com/\(iteration)").value?.data)
            }
        }
        #expect(bodies.allValues.count == 100)
        #expect(bodies.allValues.allSatisfy { $0 == Data("a".utf8) || $0 == Data("b".utf8) })
    }
}

@Suite("MockURLSessionDataTask")
struct MockURLSessionDataTaskTests {
    let session = MockURLSession()

    func makeTask(_ recorder: CompletionRecorder<Delivery>) -> any URLSessionDataTaskProtocol {
        session.makeDataTask(with: URLRequest(url: url("https://example.com/t"))) { data, response, error in
            recorder.record(Delivery(data: data, response: response as? HTTPURLResponse, error: error))
        }
    }

    @Test func aTaskThatIsNeverResumedNeverCompletes() {
        let recorder = CompletionRecorder<Delivery>()
        _ = makeTask(recorder)
        #expect(recorder.callCount == 0)
    }

    @Test func resumeDeliversOnTheCallersThreadBeforeReturning() {
        let recorder = CompletionRecorder<Delivery>()
        let thread = Locked<ObjectIdentifier?>(nil)
        let task = session.makeDataTask(with: URLRequest(url: url("https://example.com/"))) { _, _, _ in
            thread.withLock { $0 = ObjectIdentifier(Thread.current) }
            recorder.record(Delivery(data: nil, response: nil, error: nil))
        }
        task.resume()
        #expect(recorder.callCount == 1)
        #expect(thread.current == ObjectIdentifier(Thread.current))
    }

    @Test func resumingTwiceDeliversOnceButCountsTwice() throws {
        let recorder = CompletionRecorder<Delivery>()
        let task = try #require(makeTask(recorder) as? MockURLSessionDataTask)
        task.resume()
        task.resume()
        #expect(recorder.callCount == 1)
        #expect(task.resumeCount == 2)
        #expect(task.resumeWasCalled)
    }

    @Test func cancelBeforeCompletionDeliversCancelledOnce() throws {
        let recorder = CompletionRecorder<Delivery>()
        let task = try #require(makeTask(recorder) as? MockURLSessionDataTask)
        task.cancel()
        task.resume()
        task.cancel()
        #expect(recorder.callCount == 1)
        let error = try #require(recorder.value?.error as? URLError)
        #expect(error.code == .cancelled)
        #expect(error.failingURL == url("https://example.com/t"))
        #expect(task.cancelWasCalled)
    }

    @Test func cancelAfterCompletionChangesNothing() throws {
        let recorder = CompletionRecorder<Delivery>()
        let task = try #require(makeTask(recorder) as? MockURLSessionDataTask)
        task.resume()
        task.cancel()
        #expect(recorder.callCount == 1)
        #expect(recorder.value?.error == nil)
    }

    @Test func aTaskCreatedByHandRecordsResumeWithoutARequest() {
        let task = MockURLSessionDataTask()
        task.resume()
        #expect(task.resumeWasCalled)
        #expect(!task.cancelWasCalled)
        #expect(task.originalRequest == nil)
    }
}
