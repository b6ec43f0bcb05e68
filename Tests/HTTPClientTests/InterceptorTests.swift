import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

struct AddHeader: Interceptor {
    let name: String
    let value: String

    func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest {
        var request = request
        request.addValue(value, forHTTPHeaderField: name)
        return request
    }
}

struct Failing: Interceptor {
    struct Refused: Error, Equatable {}
    let inAdapt: Bool

    func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest {
        if inAdapt { throw Refused() }
        return request
    }

    func retry(
        _ request: URLRequest, after result: Result<HTTPClient.Response<Data>, HTTPClientError>, attempt: Int
    ) async throws -> RetryDecision {
        throw Refused()
    }
}

struct RetryOnce: Interceptor {
    let decision: RetryDecision

    func retry(
        _ request: URLRequest, after result: Result<HTTPClient.Response<Data>, HTTPClientError>, attempt: Int
    ) async throws -> RetryDecision {
        attempt == 1 ? decision : .doNotRetry
    }
}

@Suite("Interceptors")
struct InterceptorTests {
    let session = MockURLSession()
    let scheduler = ImmediateScheduler()

    @Test func interceptorsAdaptInOrder() async throws {
        let client = HTTPClient(
            session: session, interceptors: [AddHeader(name: "X-Step", value: "1"), AddHeader(name: "X-Step", value: "2")])
        _ = try await client.get(url("https://h/x"))
        #expect(session.requests.last?.headers["X-Step"] == "1,2")
    }

    @Test func aRequestsInterceptorsRunAfterTheClients() async throws {
        let client = HTTPClient(session: session, interceptors: [AddHeader(name: "X-Step", value: "client")])
        var request = HTTPClient.Request<Data>.get(url("https://h/x"))
        request.interceptors = [AddHeader(name: "X-Step", value: "request")]
        _ = try await client.send(request)
        #expect(session.requests.last?.headers["X-Step"] == "client,request")
    }

    @Test func aRequestReplacesTheClientsInterceptorsOnlyWhenItAsks() async throws {
        let client = HTTPClient(session: session, interceptors: [AddHeader(name: "X-Client", value: "yes")])
        var request = HTTPClient.Request<Data>.get(url("https://h/x"))
        request.interceptors = [AddHeader(name: "X-Request", value: "yes")]
        request.usesClientInterceptors = false
        _ = try await client.send(request)
        #expect(session.requests.last?.headers["X-Client"] == nil)
        #expect(session.requests.last?.headers["X-Request"] == "yes")
    }

    @Test func aRequestWithItsOwnInterceptorsKeepsTheClientsAuthorization() async throws {
        let auth = BearerTokenInterceptor(token: "t0ken", refresh: { "t0ken" })
        let client = HTTPClient(session: session, interceptors: [auth])
        var request = HTTPClient.Request<Data>.get(url("https://h/x"))
        request.interceptors = [AddHeader(name: "X-Request", value: "yes")]
        _ = try await client.send(request)
        #expect(session.requests.last?.headers["Authorization"] == "Bearer t0ken")
    }

    @Test("a throwing interceptor ends the request with a typed error that wraps what it threw", arguments: [true, false])
    func throwingInterceptorIsTyped(inAdapt: Bool) async {
        session.enqueue(.status(500))
        let client = HTTPClient(session: session, interceptors: [Failing(inAdapt: inAdapt)])
        let error = await #expect(throws: HTTPClientError.self) { try await client.get(url("https://h/x")) }
        guard case .interceptorFailed(let underlying) = error else {
            Issue.record("expected interceptorFailed, got \(String(describing: error))")
            return
        }
        #expect(underlying as? Failing.Refused == Failing.Refused())
        #expect(session.requests.count == (inAdapt ? 0 : 1))
    }

    @Test func anInterceptorCanAskForARetryAfterADelay() async throws {
        session.enqueue(.status(409), .text("ok"))
        let client = HTTPClient(session: session, interceptors: [RetryOnce(decision: .retryAfter(2))], scheduler: scheduler)
        #expect(try await client.get(url("https://h/x")).text == "ok")
        #expect(scheduler.delays == [2])
    }

    @Test func interceptorRetriesRespectIdempotencyAndTheAttemptCap() async throws {
        session.enqueue(.status(409), .text("ok"))
        let client = HTTPClient(session: session, interceptors: [RetryOnce(decision: .retry)], scheduler: scheduler)
        await #expect(throws: HTTPClientError.self) { try await client.post(url("https://h/x"), body: Data()) }
        #expect(session.requests.count == 1)

        struct Always: Interceptor {
            func retry(
                _ r: URLRequest, after: Result<HTTPClient.Response<Data>, HTTPClientError>, attempt: Int
            ) async throws -> RetryDecision {
                .retry
            }
        }
        session.removeAllRecords()
        session.nextResponse = HTTPURLResponse(url: url("https://h/x"), statusCode: 500, httpVersion: nil, headerFields: nil)
        // Without a policy, interceptor retries stop at the standard policy's attempts.
        let unbounded = HTTPClient(session: session, interceptors: [Always()], scheduler: scheduler)
        await #expect(throws: HTTPClientError.self) { try await unbounded.get(url("https://h/x")) }
        #expect(session.requests.count == RetryPolicy.standard.maximumAttempts)

        // With one, at its attempts (a policy that retries nothing itself: only the interceptor asks).
        session.removeAllRecords()
        session.nextResponse = HTTPURLResponse(url: url("https://h/x"), statusCode: 500, httpVersion: nil, headerFields: nil)
        let capped = HTTPClient(
            session: session, interceptors: [Always()],
            retryPolicy: RetryPolicy(maximumAttempts: 4, retryableStatusCodes: [], retryableErrorCodes: []), scheduler: scheduler)
        await #expect(throws: HTTPClientError.self) { try await capped.get(url("https://h/x")) }
        #expect(session.requests.count == 4)
    }
}

@Suite("Token refresh")
struct TokenRefreshTests {
    /// 401 for any token but "fresh"; 200 for "fresh".
    func makeStubs() -> StubRegistry {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, .prefix("/")).respond(.status(401))
        stubs.stub(.get, .prefix("/")).matching(.header("Authorization", "Bearer fresh")).respond(.text("secret data"))
        return stubs
    }

    @Test func on401TheTokenIsRefreshedOnceAndTheRequestRetriedWithIt() async throws {
        let stubs = makeStubs()
        let refreshes = Locked(0)
        let auth = BearerTokenInterceptor(token: "expired") {
            refreshes.withLock { $0 += 1 }
            return "fresh"
        }
        let client = HTTPClient(session: MockURLSession(stubs: stubs), interceptors: [auth])

        #expect(try await client.get(url("https://h/me")).text == "secret data")
        #expect(stubs.requests.map { $0.headers["Authorization"] } == ["Bearer expired", "Bearer fresh"])
        #expect(refreshes.current == 1)
        #expect(await auth.token == "fresh")
    }

    @Test func ifTheRefreshFailsTheOriginal401Surfaces() async throws {
        let stubs = makeStubs()
        struct SignedOut: Error {}
        let auth = BearerTokenInterceptor(token: "expired") { throw SignedOut() }
        let client = HTTPClient(session: MockURLSession(stubs: stubs), interceptors: [auth])

        let error = await #expect(throws: HTTPClientError.self) { try await client.get(url("https://h/me")) }
        guard case .unacceptableStatus(let response) = error else {
            Issue.record("expected the 401, got \(String(describing: error))")
            return
        }
        #expect(response.statusCode == 401)
        #expect(stubs.requests.count == 1)
    }

    @Test func concurrentRequestsThatAllGet401RefreshOnce() async throws {
        let stubs = makeStubs()
        let rejected = stubs.stubs[0]
        let refreshes = Locked(0)
        let requestCount = 10
        let auth = BearerTokenInterceptor(token: "expired") {
            refreshes.withLock { $0 += 1 }
            // Hold the refresh until every request has been rejected, so they all overlap it.
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(10)
            while rejected.callCount < requestCount, clock.now < deadline { await Task.yield() }
            return "fresh"
        }
        let client = HTTPClient(session: MockURLSession(stubs: stubs), interceptors: [auth])

        let bodies = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<requestCount {
                group.addTask { try await client.get(try #require(URL(string: "https://h/items/\(index)"))).text }
            }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }

        #expect(bodies == Array(repeating: "secret data", count: requestCount))
        #expect(rejected.callCount == requestCount)
        #expect(refreshes.current == 1)
    }
}
