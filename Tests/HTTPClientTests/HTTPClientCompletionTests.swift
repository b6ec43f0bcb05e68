import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient

@Suite("HTTPClient completion API")
struct HTTPClientCompletionTests {
    let session = MockURLSession()
    var client: HTTPClient { HTTPClient(session: session) }

    @Test(
        "every verb sends its method, URL and body",
        arguments: [
            ("GET", false), ("POST", true), ("PUT", true), ("PATCH", true), ("DELETE", false), ("HEAD", false),
        ])
    func verbSendsMethodAndBody(method: String, hasBody: Bool) throws {
        let target = url("https://example.com/items/1")
        let body = Data("payload".utf8)
        switch method {
        case "GET": client.get(url: target) { _ in }
        case "POST": client.post(url: target, body: body) { _ in }
        case "PUT": client.send(.put(target, body: .data(body))) { _ in }
        case "PATCH": client.send(.patch(target, body: .data(body))) { _ in }
        case "DELETE": client.send(.delete(target)) { _ in }
        default: client.send(.head(target)) { _ in }
        }
        let request = try #require(session.requests.last?.urlRequest)
        #expect(request.httpMethod == method)
        #expect(request.url == target)
        #expect(request.httpBody == (hasBody ? body : nil))
    }

    @Test func completionRunsExactlyOnceBeforeTheCallReturns() {
        let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()
        client.get(url: url("https://example.com/"), completion: recorder.record)
        #expect(recorder.callCount == 1)
    }

    @Test func theReturnedTaskIsTheStartedSessionTask() {
        let task = MockURLSessionDataTask()
        session.nextDataTask = task
        let returned = client.get(url: url("https://example.com/")) { _ in }
        #expect(returned === task)
        #expect(task.resumeCount == 1)
    }

    @Test func sendBuildsThePathQueryHeadersBodyAndTimeout() throws {
        let client = HTTPClient(session: session, baseURL: url("https://api.example.com/v2"), headers: ["X-App": "demo"])
        let request = HTTPClient.Request<Data>(
            method: .put, url: "users/7", query: [URLQueryItem(name: "notify", value: "yes")],
            headers: ["Authorization": "Bearer abc"], body: .text("hi"), timeout: 5)

        client.send(request) { _ in }

        let sent = try #require(session.requests.last?.urlRequest)
        #expect(sent.httpMethod == "PUT")
        #expect(sent.url?.absoluteString == "https://api.example.com/v2/users/7?notify=yes")
        #expect(sent.value(forHTTPHeaderField: "x-app") == "demo")
        #expect(sent.value(forHTTPHeaderField: "authorization") == "Bearer abc")
        #expect(sent.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
        #expect(sent.httpBody == Data("hi".utf8))
        #expect(sent.timeoutInterval == 5)
    }

    @Test func requestHeadersReplaceClientHeadersOfTheSameName() throws {
        let client = HTTPClient(session: session, headers: ["Accept": "text/html"])
        client.send(.get(url("https://example.com/"), headers: ["accept": "application/xml"])) { _ in }
        let sent = try #require(session.requests.last?.urlRequest)
        #expect(sent.value(forHTTPHeaderField: "Accept") == "application/xml")
    }

    @Test func clientTimeoutAppliesWhenTheRequestHasNone() throws {
        HTTPClient(session: session, timeout: 12).get(url: url("https://example.com/")) { _ in }
        #expect(try #require(session.requests.last?.urlRequest).timeoutInterval == 12)
    }

    @Test func invalidURLFailsWithoutReachingTheSession() throws {
        let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()
        client.send(.get("users/1"), completion: recorder.record)
        guard case .invalidURL(let given, let reason) = try #require(recorder.value?.failure) else {
            Issue.record("expected invalidURL")
            return
        }
        #expect(given == "users/1")
        #expect(reason.contains("no base URL"))
        #expect(session.requests.isEmpty)
        #expect(recorder.callCount == 1)
    }

    @Test func nonHTTPResponseIsATypedError() throws {
        session.nextResponse = URLResponse(url: url("file:///tmp/x"), mimeType: nil, expectedContentLength: 0, textEncodingName: nil)
        let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()
        client.get(url: url("https://example.com/"), completion: recorder.record)
        guard case .nonHTTPResponse(let where_) = try #require(recorder.value?.failure) else {
            Issue.record("expected nonHTTPResponse")
            return
        }
        #expect(where_ == url("file:///tmp/x"))
    }

    @Test func nonURLErrorsAreKeptAsTheSessionsOwnErrorOfTheirType() throws {
        struct Boom: Error, Equatable { let code: Int }
        session.nextError = Boom(code: 7)
        let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()
        client.get(url: url("https://example.com/"), completion: recorder.record)
        let error = try #require(recorder.value?.failure)
        guard case .session(let underlying as Boom) = error else {
            Issue.record("expected .session(Boom), got \(error)")
            return
        }
        #expect(underlying == Boom(code: 7))
        #expect(error.underlyingError as? Boom == Boom(code: 7))
        #expect(error.urlError == nil)
    }

    @Test func urlErrorDomainNSErrorsBecomeURLErrorsWithTheirCode() throws {
        session.nextError = NSError(domain: NSURLErrorDomain, code: URLError.timedOut.rawValue)
        let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()
        client.get(url: url("https://example.com/slow"), completion: recorder.record)
        let error = try #require(recorder.value?.failure)
        #expect(error.urlError?.code == .timedOut)
        #expect(
            error.description == "The request for https://example.com/slow failed before a response arrived: timed out (URLError -1001).")
    }

    @Test func cancellingBeforeResumeEndsWithCancelled() throws {
        let task = MockURLSessionDataTask()
        session.nextDataTask = task
        let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()
        // A session that does not start tasks: the mock's task stays pending until cancelled.
        let unstarted = UnstartedSession(wrapping: session)
        HTTPClient(session: unstarted).get(url: url("https://example.com/"), completion: recorder.record)
        #expect(recorder.callCount == 0)
        task.cancel()
        #expect(recorder.value?.failure?.isCancelled == true)
        task.resume()
        #expect(recorder.callCount == 1)
    }

    @Test func validationIsConfigurableOnTheClientAndPerRequest() throws {
        session.enqueue(.status(404), .status(304), .status(304))
        let lenient = HTTPClient(session: session, validation: .acceptAll)
        let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()
        lenient.get(url: url("https://example.com/"), completion: recorder.record)
        #expect(try recorder.allValues[0].get().statusCode == 404)

        client.get(url: url("https://example.com/"), completion: recorder.record)
        #expect(recorder.allValues[1].failure?.response?.statusCode == 304)

        var request = HTTPClient.Request<Data>.get(url("https://example.com/"))
        request.validation = .statusCodes([200, 304])
        client.send(request, completion: recorder.record)
        #expect(try recorder.allValues[2].get().statusCode == 304)
    }

    @Test func decodesJSONThroughTheCompletionAPI() throws {
        session.enqueue(try .json(User(id: 1, name: "Ada")))
        let recorder = CompletionRecorder<Result<HTTPClient.Response<User>, HTTPClientError>>()
        client.send(HTTPClient.Request<User>.get(url("https://example.com/users/1")), completion: recorder.record)
        #expect(try recorder.value?.get().value == User(id: 1, name: "Ada"))
        #expect(session.requests.last?.headers["Accept"] == "application/json")
    }
}

/// Forwards to a session but never calls `resume()` for the client: lets a test hold a task
/// that the client has "started" in a state where it is still pending.
struct UnstartedSession: URLSessionProtocol {
    let wrapping: MockURLSession

    final class Unstarted: URLSessionDataTaskProtocol {
        let task: any URLSessionDataTaskProtocol
        init(_ task: any URLSessionDataTaskProtocol) { self.task = task }
        func resume() {}
        func cancel() { task.cancel() }
    }

    func makeDataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any URLSessionDataTaskProtocol {
        Unstarted(wrapping.makeDataTask(with: request, completionHandler: completionHandler))
    }
}
