import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

struct User: Codable, Equatable, Sendable {
    let id: Int
    let name: String
}

/// A URL literal in tests; fails the build of the test instead of crashing at run time.
func url(_ string: StaticString) -> URL {
    guard let url = URL(string: "\(string)") else { preconditionFailure("bad test URL \(string)") }
    return url
}

extension Result {
    /// The failure, or nil: lets a test write `#expect(result.failure?.statusCode == 404)`.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// A session whose tasks never complete on their own: they wait to be cancelled. Signals each
/// new task through `tasks` so a test can act once the request is in flight, without sleeping.
final class PendingSession: URLSessionProtocol, Sendable {
    final class Task: URLSessionDataTaskProtocol, Sendable {
        private let completion: Locked<(@Sendable (Data?, URLResponse?, (any Error)?) -> Void)?>
        let cancelCount = Locked(0)

        init(completion: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) {
            self.completion = Locked(completion)
        }

        func resume() {}

        func cancel() {
            cancelCount.withLock { $0 += 1 }
            let completion = self.completion.withLock { value in
                defer { value = nil }
                return value
            }
            completion?(nil, nil, URLError(.cancelled))
        }
    }

    let tasks: AsyncStream<Task>
    private let continuation: AsyncStream<Task>.Continuation

    init() {
        (tasks, continuation) = AsyncStream.makeStream(of: Task.self)
    }

    func makeDataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any URLSessionDataTaskProtocol {
        let task = Task(completion: completionHandler)
        continuation.yield(task)
        return task
    }
}

/// Starts `call`, waits until its first request reached `session`, cancels it, and checks that
/// it ended at once with `.cancelled`, after that one request: a wait in progress (backoff,
/// `Retry-After`, an interceptor's delay) must not outlive its task.
func expectCancellingEndsTheWait(
    _ session: MockURLSession, _ call: @escaping @Sendable () async throws -> HTTPClient.Response<Data>,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    let task = Task { try await call() }
    while session.requests.isEmpty { await Task.yield() }
    let clock = ContinuousClock()
    let start = clock.now
    task.cancel()
    let result = await task.result
    #expect((result.failure as? HTTPClientError)?.isCancelled == true, sourceLocation: sourceLocation)
    #expect(clock.now - start < .seconds(30), sourceLocation: sourceLocation)
    #expect(session.requests.count == 1, sourceLocation: sourceLocation)
}

/// The completion API's twin of ``expectCancellingEndsTheWait(_:_:sourceLocation:)``: cancels
/// the task `start` returned once its first request arrived, and checks the completion said
/// `.cancelled` after that one request.
func expectCancellingTheTaskEndsTheWait(
    _ session: MockURLSession,
    _ start: (@escaping @Sendable (Result<HTTPClient.Response<Data>, HTTPClientError>) -> Void) -> any URLSessionDataTaskProtocol,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()
    let task = start(recorder.record)
    while session.requests.isEmpty { await Task.yield() }
    task.cancel()
    while recorder.callCount == 0 { await Task.yield() }
    #expect(recorder.value?.failure?.isCancelled == true, sourceLocation: sourceLocation)
    #expect(session.requests.count == 1, sourceLocation: sourceLocation)
}
