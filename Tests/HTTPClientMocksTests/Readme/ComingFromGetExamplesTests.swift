// The examples of MakingRequests.md and InterceptorsRetriesAndEvents.md that Get's users look
// for (a throwing validation, a per-request task delegate, an interceptor's own retry limit),
// compiled and run.
import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

struct APIProblem: Error, Decodable {
    let title: String
}

func makeClient(session: any URLSessionProtocol) -> HTTPClient {
    HTTPClient(
        session: session,
        validation: HTTPClient.Validation { response in
            if response.statusCode == 422 { throw try response.decode(APIProblem.self) }
            return response.isSuccessful
        })
}

final class MetricsLogger: NSObject, URLSessionTaskDelegate {
    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        print(metrics.taskInterval.duration)
    }
}

func loadFeed(client: HTTPClient) async throws -> Data {
    var request = HTTPClient.Request<Data>.get("feed")
    request.delegate = MetricsLogger()
    return try await client.send(request).value
}

struct RetryOnConflict: Interceptor {
    var maximumRetries: Int { 4 }

    func retry(
        _ request: URLRequest, after result: Result<HTTPClient.Response<Data>, HTTPClientError>, attempt: Int
    ) async throws -> RetryDecision {
        guard case .failure(let error) = result, error.response?.statusCode == 409 else { return .doNotRetry }
        return .retryAfter(0.2)
    }
}

@Suite("Coming from Get examples")
struct ComingFromGetExamplesTests {
    @Test func theAppsProblemIsTheCauseOfAValidationFailure() async throws {
        let stubs = StubRegistry()
        stubs.stub(.post, "/users").respond(.json(raw: #"{"title": "Name taken"}"#, status: 422))
        let client = makeClient(session: MockURLSession(stubs: stubs))
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(.post(testURL("https://api.example.com/users"), body: .text("x")))
        }
        #expect((error?.underlyingError as? APIProblem)?.title == "Name taken")
    }

    @Test func theFeedLoadsWithItsDelegateSet() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/feed").respond(.text("items"))
        let client = HTTPClient(session: MockURLSession(stubs: stubs), baseURL: URL(string: "https://api.example.com"))
        #expect(try await loadFeed(client: client) == Data("items".utf8))
    }

    @Test func aConflictIsRetriedUpToTheInterceptorsFiveAttempts() async throws {
        let stubs = StubRegistry()
        stubs.stub(.post, "/orders").respond(.status(409))
        let scheduler = ImmediateScheduler()
        let client = HTTPClient(session: MockURLSession(stubs: stubs), interceptors: [RetryOnConflict()], scheduler: scheduler)
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(.post(testURL("https://api.example.com/orders"), body: .text("1 book")))
        }
        #expect(error?.response?.statusCode == 409)
        #expect(stubs.requests.count == 5)
        #expect(scheduler.delays == [0.2, 0.2, 0.2, 0.2])
    }
}
