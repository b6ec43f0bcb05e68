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

    /// The interceptor knows why it asks (a 401 was refused before the server acted); only
    /// the retry policy looks at the method.
    @Test func anInterceptorsRetryIsSentWhateverTheMethod() async throws {
        session.enqueue(.status(409), .text("ok"))
        let client = HTTPClient(session: session, interceptors: [RetryOnce(decision: .retry)], scheduler: scheduler)
        #expect(try await client.post(url("https://h/x"), body: Data()).text == "ok")
        #expect(session.requests.map(\.method) == [.post, .post])
    }

    /// An interceptor that asks for a retry after every attempt, up to `limit` retries.
    struct Always: Interceptor {
        var limit = 2
        var maximumRetries: Int { limit }

        func retry(
            _ r: URLRequest, after: Result<HTTPClient.Response<Data>, HTTPClientError>, attempt: Int
        ) async throws -> RetryDecision {
            .retry
        }
    }

    @Test func anInterceptorsRetriesStopAtTheLimitItStatesWithTheLastFailure() async throws {
        session.nextResponse = HTTPURLResponse(url: url("https://h/x"), statusCode: 500, httpVersion: nil, headerFields: nil)
        let client = HTTPClient(session: session, interceptors: [Always(limit: 4)], scheduler: scheduler)
        let error = await #expect(throws: HTTPClientError.self) { try await client.get(url("https://h/x")) }
        #expect(session.requests.count == 5)
        guard case .unacceptableStatus(let response)? = error else {
            Issue.record("expected the last 500, got \(String(describing: error))")
            return
        }
        #expect(response.statusCode == 500)
    }

    /// Asked only while it has retries left: once spent, an interceptor's decision (which may
    /// cost a token refresh) is not asked for.
    @Test func anInterceptorWhoseRetriesAreSpentIsNotAskedAgain() async throws {
        final class Counting: Interceptor, Sendable {
            let asked = Locked(0)
            var maximumRetries: Int { 1 }
            func retry(
                _ r: URLRequest, after: Result<HTTPClient.Response<Data>, HTTPClientError>, attempt: Int
            ) async throws -> RetryDecision {
                asked.withLock { $0 += 1 }
                return .retry
            }
        }
        session.nextResponse = HTTPURLResponse(url: url("https://h/x"), statusCode: 500, httpVersion: nil, headerFields: nil)
        let counting = Counting()
        let client = HTTPClient(session: session, interceptors: [counting], scheduler: scheduler)
        await #expect(throws: HTTPClientError.self) { try await client.get(url("https://h/x")) }
        #expect(session.requests.count == 2)
        #expect(counting.asked.current == 1)
    }

    /// The budget is the interceptor's own: retries the policy made before do not use it up.
    @Test func anInterceptorsRetriesAreCountedApartFromThePolicys() async throws {
        struct OnConflict: Interceptor {
            var maximumRetries: Int { 1 }
            func retry(
                _ r: URLRequest, after result: Result<HTTPClient.Response<Data>, HTTPClientError>, attempt: Int
            ) async throws -> RetryDecision {
                result.failure?.response?.statusCode == 409 ? .retry : .doNotRetry
            }
        }
        session.enqueue(.status(503), .status(503), .status(409), .text("ok"))
        let client = HTTPClient(
            session: session, interceptors: [OnConflict()], retryPolicy: RetryPolicy(maximumAttempts: 3, jitter: 0),
            scheduler: scheduler)
        #expect(try await client.get(url("https://h/x")).text == "ok")
        #expect(session.requests.count == 4)
    }

    @Test func anInterceptorsLimitIsItsOwnNotThePolicys() async throws {
        session.nextResponse = HTTPURLResponse(url: url("https://h/x"), statusCode: 500, httpVersion: nil, headerFields: nil)
        // A policy that retries nothing itself and allows 2 attempts: the interceptor's 4 rule.
        let client = HTTPClient(
            session: session, interceptors: [Always(limit: 4)],
            retryPolicy: RetryPolicy(maximumAttempts: 2, retryableStatusCodes: [], retryableErrorCodes: []), scheduler: scheduler)
        await #expect(throws: HTTPClientError.self) { try await client.get(url("https://h/x")) }
        #expect(session.requests.count == 5)
    }

    @Test func anInterceptorAllowsTwoRetriesUnlessItSaysOtherwise() async throws {
        struct Default: Interceptor {}
        #expect(Default().maximumRetries == 2)
        session.nextResponse = HTTPURLResponse(url: url("https://h/x"), statusCode: 500, httpVersion: nil, headerFields: nil)
        let client = HTTPClient(session: session, interceptors: [Always()], scheduler: scheduler)
        await #expect(throws: HTTPClientError.self) { try await client.get(url("https://h/x")) }
        #expect(session.requests.count == 3)
    }

    @Test func aRequestThatEndsWithoutAnyoneAskingForMoreIsNotReportedAsLimited() async throws {
        session.enqueue(.status(409), .status(409))
        let client = HTTPClient(session: session, interceptors: [RetryOnce(decision: .retry)], scheduler: scheduler)
        let error = await #expect(throws: HTTPClientError.self) { try await client.get(url("https://h/x")) }
        guard case .unacceptableStatus(let response)? = error else {
            Issue.record("expected the 409 itself, got \(String(describing: error))")
            return
        }
        #expect(response.statusCode == 409)
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

    /// A 401 is refused before the server acts, so a POST is as safe to send again as a GET.
    @Test func on401ToAPostTheTokenIsRefreshedOnceAndThePostSentAgain() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.post, "/orders").respond(.status(401))
        stubs.stub(.post, "/orders").matching(.header("Authorization", "Bearer fresh")).respond(.text("created", status: 201))
        let auth = BearerTokenInterceptor(token: "expired") { "fresh" }
        let client = HTTPClient(session: MockURLSession(stubs: stubs), interceptors: [auth])

        let response = try await client.send(.post(url("https://h/orders"), body: .text("1 book")))
        #expect(response.statusCode == 201)
        #expect(stubs.requests.map { $0.headers["Authorization"] } == ["Bearer expired", "Bearer fresh"])
    }

    @Test func hundredsOfConcurrentPostsThatAllGet401RefreshOnceAndAreEachSentTwice() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        let rejected = stubs.stub(.post, .prefix("/orders")).respond(.status(401))
        stubs.stub(.post, .prefix("/orders")).matching(.header("Authorization", "Bearer fresh")).respond(.text("created", status: 201))
        let refreshes = Locked(0)
        let requestCount = 200
        let auth = BearerTokenInterceptor(token: "expired") {
            refreshes.withLock { $0 += 1 }
            // Hold the refresh until every request has been rejected, so they all overlap it.
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(10)
            while rejected.callCount < requestCount, clock.now < deadline { await Task.yield() }
            return "fresh"
        }
        let client = HTTPClient(session: MockURLSession(stubs: stubs), interceptors: [auth])

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<requestCount {
                group.addTask {
                    try await client.send(.post(try #require(URL(string: "https://h/orders/\(index)")), body: .text("1"))).statusCode
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }

        #expect(statuses == Array(repeating: 201, count: requestCount))
        #expect(stubs.requests.count == 2 * requestCount)
        #expect(refreshes.current == 1)
    }

    @Test func aSecond401AfterTheRefreshIsWhatTheCallerGets() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/me").respond(.status(401))
        let refreshes = Locked(0)
        let auth = BearerTokenInterceptor(token: "expired") {
            refreshes.withLock { $0 += 1 }
            return "also-rejected"
        }
        let client = HTTPClient(session: MockURLSession(stubs: stubs), interceptors: [auth])
        let error = await #expect(throws: HTTPClientError.self) { try await client.get(url("https://h/me")) }
        guard case .unacceptableStatus(let response)? = error else {
            Issue.record("expected the 401, got \(String(describing: error))")
            return
        }
        #expect(response.statusCode == 401)
        #expect(stubs.requests.count == 2)
        #expect(refreshes.current == 1)
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

    /// The 401 comes at the second attempt, after a 503 the retry policy retried: it still
    /// refreshes, once.
    @Test func a401AfterAServerErrorThatWasRetriedRefreshes() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/me").respond(.status(503), .status(401))
        stubs.stub(.get, "/me").matching(.header("Authorization", "Bearer fresh")).respond(.text("me"))
        let refreshes = Locked(0)
        let auth = BearerTokenInterceptor(token: "expired") {
            refreshes.withLock { $0 += 1 }
            return "fresh"
        }
        let client = HTTPClient(
            session: MockURLSession(stubs: stubs), interceptors: [auth], retryPolicy: RetryPolicy(maximumAttempts: 3, jitter: 0),
            scheduler: ImmediateScheduler())

        #expect(try await client.get(url("https://h/me")).text == "me")
        #expect(stubs.requests.map { $0.headers["Authorization"] } == ["Bearer expired", "Bearer expired", "Bearer fresh"])
        #expect(refreshes.current == 1)
    }

    /// 200 requests that all get a 401, with an auth server that fails: however their 401s
    /// interleave with the failed refresh, the auth server is asked once.
    @Test func twoHundredConcurrent401sWithAFailingRefreshAskTheAuthServerOnce() async throws {
        struct AuthServerDown: Error {}
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, .prefix("/")).respond(.status(401))
        let refreshes = Locked(0)
        let auth = BearerTokenInterceptor(token: "expired", retryingAFailedRefreshAfter: .seconds(3600)) {
            refreshes.withLock { $0 += 1 }
            throw AuthServerDown()
        }
        let client = HTTPClient(session: MockURLSession(stubs: stubs), interceptors: [auth])

        let statuses = await withTaskGroup(of: Int?.self) { group in
            for index in 0..<200 {
                group.addTask {
                    do {
                        _ = try await client.get(try #require(URL(string: "https://h/items/\(index)")))
                        return nil
                    } catch {
                        return (error as? HTTPClientError)?.response?.statusCode
                    }
                }
            }
            return await group.reduce(into: [Int?]()) { $0.append($1) }
        }

        #expect(statuses == Array(repeating: 401, count: 200))
        #expect(stubs.requests.count == 200)
        #expect(refreshes.current == 1)
    }

    @Test func aFailedRefreshIsTriedAgainForItsTokenOnceItsHoldOffHasPassed() async throws {
        let stubs = makeStubs()
        let attempts = Locked(0)
        let auth = BearerTokenInterceptor(token: "expired", retryingAFailedRefreshAfter: .zero) {
            let attempt = attempts.withLock { attempts in
                attempts += 1
                return attempts
            }
            if attempt == 1 { throw URLError(.notConnectedToInternet) }
            return "fresh"
        }
        let client = HTTPClient(session: MockURLSession(stubs: stubs), interceptors: [auth])

        await #expect(throws: HTTPClientError.self) { try await client.get(url("https://h/me")) }
        #expect(try await client.get(url("https://h/me")).text == "secret data")
        #expect(attempts.current == 2)
    }

    @Test func aFailedRefreshIsTheAnswerForItsTokenDuringItsHoldOff() async throws {
        let stubs = makeStubs()
        let refreshes = Locked(0)
        let auth = BearerTokenInterceptor(token: "expired", retryingAFailedRefreshAfter: .seconds(3600)) {
            refreshes.withLock { $0 += 1 }
            throw URLError(.notConnectedToInternet)
        }
        let client = HTTPClient(session: MockURLSession(stubs: stubs), interceptors: [auth])

        for _ in 0..<3 { await #expect(throws: HTTPClientError.self) { try await client.get(url("https://h/me")) } }
        #expect(refreshes.current == 1)
        #expect(stubs.requests.count == 3)
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
