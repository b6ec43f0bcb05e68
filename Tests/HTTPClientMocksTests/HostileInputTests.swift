import Foundation
import HTTPClient
import HTTPClientMocks
@_spi(Engine) import HTTPClientStubs
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Hostile inputs against Mocktail files, query and form matchers, throttling, redirect headers
/// and the client behaviours kean/Get's users rely on: each test states what holds.
@Suite("Hostile inputs")
struct HostileInputTests {
    let folder: TemporaryFolder
    let failures = CollectedFailures()

    init() throws { folder = try TemporaryFolder() }

    func file(_ name: String) -> URL { folder.url.appendingPathComponent(name) }

    func mocktailError(_ text: String) -> FixtureError? {
        do {
            try folder.write("bad.tail", text)
            _ = try MocktailFiles([folder.url])
            return nil
        } catch let error as FixtureError {
            return error
        } catch {
            Issue.record("not a FixtureError: \(error)")
            return nil
        }
    }

    func mocktailClient() throws -> (HTTPClient, StubRegistry) {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.serve(try MocktailFiles([folder.url]))
        return (HTTPClient(session: MockURLSession(stubs: stubs)), stubs)
    }

    func outcome(_ session: MockURLSession, _ sent: URLRequest) async -> Result<(Data, URLResponse), any Error> {
        do { return .success(try await session.data(for: sent)) } catch { return .failure(error) }
    }

    // MARK: Mocktail

    @Test(arguments: ["000", "600", "99", "2000", "abc", "-200", "2 0"])
    func aMocktailStatusOutsideTheRangeNamesFileAndLine(status: String) throws {
        let error = try #require(mocktailError("GET\n/a\n\(status)\ntext/plain\n\nbody"))
        #expect(String(describing: error).contains("bad.tail"))
        #expect(String(describing: error).contains("3"))
    }

    @Test func aMocktailWithAnInvalidRegexNamesFileAndLine() throws {
        let error = try #require(mocktailError("GET\n[unclosed(\n200\ntext/plain\n\nbody"))
        #expect(String(describing: error).contains("bad.tail"))
        #expect(String(describing: error).contains("2"))
    }

    @Test(arguments: ["", "\n", "GET\n", "GET\n/a\n", "GET\n/a\n200\n", "\n\n\n\n\n"])
    func aMocktailMissingLinesIsAFixtureError(text: String) throws {
        let error = try #require(mocktailError(text))
        #expect(String(describing: error).contains("bad.tail"))
    }

    @Test func aBinaryMocktailIsAFixtureError() throws {
        try Data([0xFF, 0xFE, 0x00, 0xC3, 0x28, 0x0A, 0x80]).write(to: file("bin.tail"))
        #expect(throws: FixtureError.self) { try MocktailFiles([folder.url]) }
    }

    @Test func aMocktailWithCRLFLinesIsServedWithCleanHeaders() async throws {
        try folder.write("a.tail", "GET\r\n/a$\r\n201\r\ntext/plain\r\nX-Total: 2\r\n\r\nhello")
        let response = try await mocktailClient().0.get(testURL("https://h/a"))
        #expect(response.statusCode == 201)
        #expect(response.headers["Content-Type"] == "text/plain")
        #expect(response.headers["X-Total"] == "2")
        #expect(response.text == "hello")
    }

    @Test func aMocktailWithMixedLineEndingsIsServed() async throws {
        try folder.write("a.tail", "GET\n/a$\r\n200\ntext/plain\r\n\nhello")
        let response = try await mocktailClient().0.get(testURL("https://h/a"))
        #expect(response.statusCode == 200)
        #expect(response.text == "hello")
    }

    @Test func anInvalidBase64BodyIsAFixtureError() throws {
        let error = try #require(mocktailError("GET\n/a\n200\nimage/png;base64\n\n!!!not base64!!!"))
        #expect(String(describing: error).contains("bad.tail"))
    }

    @Test func aBase64BodyWrappedOverLinesDecodes() async throws {
        let bytes = Data((0..<200).map { UInt8($0) })
        let wrapped = bytes.base64EncodedString(options: .lineLength76Characters)
        try folder.write("a.tail", "GET\n/a\n200\napplication/octet-stream;base64\n\n\(wrapped)\n")
        let response = try await mocktailClient().0.get(testURL("https://h/a"))
        #expect(response.body == bytes)
    }

    @Test func anEmptyBase64BodyIsAnEmptyBody() async throws {
        try folder.write("a.tail", "GET\n/a\n200\nimage/png;base64\n\n")
        let response = try await mocktailClient().0.get(testURL("https://h/a"))
        #expect(response.body.isEmpty)
    }

    @Test(arguments: ["(a+)+$", "(.*a){20}$"])
    func aCatastrophicPatternDoesNotHangTheRequest(pattern: String) async throws {
        try folder.write("evil.tail", "GET\n\(pattern)\n200\ntext/plain\n\nevil")
        let (client, _) = try mocktailClient()
        let started = Date()
        let url = testURL("https://h/" + String(repeating: "a", count: 40) + "!")
        _ = try? await client.get(url)
        #expect(Date().timeIntervalSince(started) < 50)  // unbounded, 2^40 steps; capped, half a second
        #expect(failures.all.count == 1)
        #expect(failures.all.first?.contains("evil.tail") == true)
    }

    @Test func aHugeMocktailBodyIsServedWhole() async throws {
        let body = String(repeating: "x", count: 4_000_000)
        try folder.write("big.tail", "GET\n/big\n200\ntext/plain\n\n\(body)")
        let response = try await mocktailClient().0.get(testURL("https://h/big"))
        #expect(response.body.count == 4_000_000)
    }

    @Test func aSymlinkedMocktailInTheFolderIsServed() async throws {
        let outside = try TemporaryFolder()
        try outside.write("real.tail", "GET\n/linked\n200\ntext/plain\n\nlinked")
        try FileManager.default.createSymbolicLink(
            at: file("link.tail"), withDestinationURL: outside.url.appendingPathComponent("real.tail"))
        let response = try await mocktailClient().0.get(testURL("https://h/linked"))
        #expect(response.text == "linked")
    }

    @Test func aDanglingOrLoopingSymlinkIsAFixtureErrorNotACrash() throws {
        try FileManager.default.createSymbolicLink(atPath: file("loop.tail").path, withDestinationPath: file("loop.tail").path)
        #expect(throws: FixtureError.self) { try MocktailFiles([folder.url]) }
    }

    @Test func aSubfolderNamedTailIsSkippedOrRefusedNotReadAsAFile() async throws {
        try FileManager.default.createDirectory(at: file("sub.tail"), withIntermediateDirectories: true)
        try folder.write("a.tail", "GET\n/a\n200\ntext/plain\n\na")
        do {
            let response = try await mocktailClient().0.get(testURL("https://h/a"))
            #expect(response.text == "a")
        } catch let error as FixtureError {
            #expect(String(describing: error).contains("sub.tail"))
        }
    }

    @Test func aFIFONamedTailDoesNotHangTheLoad() async throws {
        let fifo = file("pipe.tail")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        try folder.write("a.tail", "GET\n/a\n200\ntext/plain\n\na")
        let url = folder.url
        let load = Task.detached { () -> Result<Int, any Error> in
            Result {
                _ = try MocktailFiles([url])
                return 0
            }
        }
        let finished = Locked(false)
        let watchdog = Task.detached {
            try? await Task.sleep(for: .seconds(3))
            if !finished.current {
                // Unblock a reader stuck on the FIFO: open its write end and close it (EOF).
                let descriptor = open(fifo.path, O_WRONLY | O_NONBLOCK)
                if descriptor >= 0 { close(descriptor) }
                return true
            }
            return false
        }
        let result = await load.value
        finished.withLock { $0 = true }
        watchdog.cancel()
        #expect(await watchdog.value == false, "loading a folder with a FIFO blocked until the watchdog opened it")
        if case .failure(let error) = result {
            #expect(error is FixtureError)
            #expect(String(describing: error).contains("pipe.tail"))
        }
    }

    @Test func hundredsOfConcurrentRequestsAreEachAnswered() async throws {
        for index in 0..<20 { try folder.write("f\(index).tail", "GET\n/item/\(index)$\n200\ntext/plain\n\n\(index)") }
        let (client, stubs) = try mocktailClient()
        let texts = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<400 {
                group.addTask { (index, try await client.get(testURL("https://h/item/\(index % 20)")).text ?? "") }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(texts.count == 400)
        #expect(texts.allSatisfy { $0.value == "\($0.key % 20)" })
        #expect(stubs.requests.count == 400)
        #expect(failures.all.isEmpty)
    }

    // MARK: Matchers

    func matches(_ matcher: RequestMatcher, _ url: String, method: String = "GET", body: String? = nil) -> Bool {
        matcher.matches(RecordedRequest(request(method, url, body: body.map { Data($0.utf8) })))
    }

    @Test func aQueryPlusIsAPlusAndAnEncodedPlusToo() {
        #expect(matches(.query(["q": "a+b"]), "https://h/s?q=a+b"))
        #expect(matches(.query(["q": "a+b"]), "https://h/s?q=a%2Bb"))
        #expect(!matches(.query(["q": "a b"]), "https://h/s?q=a+b"))
        #expect(matches(.query(["q": "a b"]), "https://h/s?q=a%20b"))
    }

    @Test func aFormPlusIsASpaceAndAnEncodedPlusAPlus() {
        #expect(matches(.formBody(["q": "a b"]), "https://h/f", method: "POST", body: "q=a+b"))
        #expect(matches(.formBody(["q": "a+b"]), "https://h/f", method: "POST", body: "q=a%2Bb"))
        #expect(!matches(.formBody(["q": "a+b"]), "https://h/f", method: "POST", body: "q=a+b"))
    }

    @Test func anEqualsSignInAValueBelongsToTheValue() {
        #expect(matches(.query(["token": "a=b=c"]), "https://h/s?token=a=b=c"))
        #expect(matches(.queryExactly(["token": "a=b"]), "https://h/s?token=a%3Db"))
    }

    @Test func aDuplicatedItemIsNotAnExactSingleItem() {
        #expect(!matches(.queryExactly(["a": "1"]), "https://h/s?a=1&a=1"))
        #expect(matches(.queryExactly([URLQueryItem(name: "a", value: "1"), URLQueryItem(name: "a", value: "1")]), "https://h/s?a=1&a=1"))
    }

    @Test func emptyPairsAreSkippedButAnEmptyNameIsAnItem() {
        #expect(matches(.queryExactly(["a": "1"]), "https://h/s?&&a=1&&"))
        #expect(!matches(.queryExactly(["a": "1"]), "https://h/s?a=1&=x"))
        #expect(matches(.query([URLQueryItem(name: "", value: "x")]), "https://h/s?=x"))
    }

    @Test func aBareFlagIsNotAnEmptyValueInAForm() {
        let bare = RequestMatcher.formBodyExactly([URLQueryItem(name: "remember", value: nil)])
        #expect(matches(bare, "https://h/f", method: "POST", body: "remember"))
        #expect(!matches(bare, "https://h/f", method: "POST", body: "remember="))
    }

    @Test func theUnmatchedReportSaysWhyTheQueryDidNotMatch() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.get, "/search").matching(.queryExactly(["q": "swift"])).respond(.text("ok"))
        _ = try? await MockURLSession(stubs: stubs).data(for: request("GET", "https://h/search?q=kotlin"))
        let report = try #require(failures.all.first)
        #expect(report.lowercased().contains("query"))
    }

    @Test func credentialsInAnUnmatchedQueryAndFormAreNotPrinted() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.post, "/login").matching(.formBody(["user": "bob"])).respond(.status(204))
        stubs.stub(.get, "/me").matching(.query(["access_token": "other"])).respond(.status(204))
        let session = MockURLSession(stubs: stubs)
        _ = try? await session.data(
            for: request(
                "POST", "https://h/login?api_key=K3YS3CRET", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data("user=ada&password=HUNT3R2".utf8)))
        _ = try? await session.data(for: request("GET", "https://h/me?access_token=T0KS3CRET"))
        let reports = failures.all.joined(separator: "\n")
        #expect(failures.all.count == 2)
        #expect(!reports.contains("K3YS3CRET"))
        #expect(!reports.contains("HUNT3R2"))
        #expect(!reports.contains("T0KS3CRET"))
    }

    // MARK: Throttling

    func throttledChunks(_ body: Data, _ throughput: Throughput) async throws -> (chunks: [Int], seconds: Double) {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.get, "/t").respond(.status(200, body: body).throttled(to: throughput))
        let session = MockURLSession(stubs: stubs, simulatesLatency: true)
        let started = Date()
        let (chunks, _) = try await session.chunks(for: request("GET", "https://h/t"))
        var sizes: [Int] = []
        for try await chunk in chunks { sizes.append(chunk.count) }
        return (sizes, Date().timeIntervalSince(started))
    }

    @Test(arguments: [0, -1, Double.nan, -Double.infinity, Double.infinity])
    func aSpeedThatIsNotPositiveAndFiniteDeliversAtOnce(bytesPerSecond: Double) async throws {
        let (sizes, seconds) = try await throttledChunks(Data(count: 10_000), Throughput(bytesPerSecond: bytesPerSecond))
        #expect(sizes.reduce(0, +) == 10_000)
        // At once, against a bound far above any machine's stall (a full test run on two
        // busy cores has held a timer back by seconds).
        #expect(seconds < 60)
    }

    @Test(arguments: [0, -1, Double.nan, -Double.infinity])
    func aTotalTimeThatIsNotPositiveDeliversAtOnce(seconds total: Double) async throws {
        let (sizes, seconds) = try await throttledChunks(Data(count: 10_000), .totalTime(total))
        #expect(sizes.reduce(0, +) == 10_000)
        // At once, against a bound far above any machine's stall (a full test run on two
        // busy cores has held a timer back by seconds).
        #expect(seconds < 60)
    }

    @Test func aThrottledEmptyBodyEnds() async throws {
        let (sizes, seconds) = try await throttledChunks(Data(), .gprs)
        #expect(sizes.reduce(0, +) == 0)
        #expect(seconds < 60)  // no bytes, no time; far above any machine's stall
    }

    @Test func aTinySpeedStillDeliversInAtMostTenThousandChunks() async throws {
        // 1 byte per second over 3 bytes: 3 chunks of 1 byte, 1 s apart, would take 3 s; keep it short.
        let (sizes, _) = try await throttledChunks(Data(count: 3), .totalTime(0.3))
        #expect(sizes.reduce(0, +) == 3)
    }

    @Test func leavingAThrottledStreamHalfwayStopsPromptly() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        let stub = stubs.stub(.get, "/t").respond(.status(200, body: Data(count: 100_000)).throttled(to: .totalTime(600)))
        let session = MockURLSession(stubs: stubs, simulatesLatency: true)
        let started = Date()
        let reader = Task {
            let (chunks, _) = try await session.chunks(for: request("GET", "https://h/t"))
            for try await _ in chunks { break }
        }
        try await reader.value
        #expect(Date().timeIntervalSince(started) < 300)  // the body's whole time is 600 s
        #expect(stub.calls.count == 1)
    }

    @Test func cancellingAThrottledDataRequestHalfwayEndsWithCancelled() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.get, "/t").respond(.status(200, body: Data(count: 100_000)).throttled(to: .totalTime(600)))
        let session = MockURLSession(stubs: stubs, simulatesLatency: true)
        let started = Date()
        let (chunks, _) = try await session.chunks(for: request("GET", "https://h/t"))
        let reader = Task {
            var count = 0
            for try await chunk in chunks { count += chunk.count }
            return count
        }
        reader.cancel()
        let result = await reader.result
        #expect(Date().timeIntervalSince(started) < 300)  // the body's whole time is 600 s
        if case .success(let count) = result { #expect(count < 100_000) }
    }

    // MARK: Redirects

    @Test func anAuthorizationIsNotCarriedToAnotherOriginNorBack() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.get, "https://a.example/start").respond(.status(302, headers: ["Location": "https://b.example/x"]))
        stubs.stub(.get, "https://b.example/x").respond(.status(302, headers: ["Location": "https://a.example/end"]))
        stubs.stub(.get, "https://a.example/end").respond(.text("end"))
        let session = MockURLSession(stubs: stubs)
        let (body, _) = try await session.data(
            for: request("GET", "https://a.example/start", headers: ["Authorization": "Bearer S", "Cookie": "c=1", "X-Custom": "kept"]))
        #expect(String(decoding: body, as: UTF8.self) == "end")
        #expect(stubs.requests.map { $0.headers["Authorization"] } == ["Bearer S", nil, nil])
        #expect(stubs.requests.map { $0.headers["Cookie"] } == ["c=1", nil, nil])
        #expect(stubs.requests.map { $0.headers["X-Custom"] } == ["kept", "kept", "kept"])
    }

    @Test func aRedirectLoopEndsWithTooManyRedirects() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.get, "https://a.example/loop").respond(.status(302, headers: ["Location": "/loop"]))
        let error = await #expect(throws: URLError.self) {
            try await MockURLSession(stubs: stubs).data(for: request("GET", "https://a.example/loop"))
        }
        #expect(error?.code == .httpTooManyRedirects)
        #expect(stubs.requests.count == 17)
    }

    @Test func a303DropsTheBodyAndItsContentHeaders() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.put, "https://a.example/upload").respond(.status(303, headers: ["Location": "/done"], body: Data("see other".utf8)))
        stubs.stub(.get, "https://a.example/done").respond(.text("done"))
        let (body, _) = try await MockURLSession(stubs: stubs).data(
            for: request("PUT", "https://a.example/upload", headers: ["Content-Type": "application/json"], body: Data("{}".utf8)))
        #expect(String(decoding: body, as: UTF8.self) == "done")
        let hop = try #require(stubs.requests.last)
        #expect(hop.method == "GET")
        #expect(hop.body.isEmpty)
        #expect(hop.headers["Content-Type"] == nil)
    }

    @Test func aPortChangeOnTheSameHostDropsTheAuthorization() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.get, "https://a.example/start").respond(.status(307, headers: ["Location": "https://a.example:8443/x"]))
        stubs.stub(.get, "https://a.example:8443/x").respond(.text("x"))
        _ = try await MockURLSession(stubs: stubs).data(
            for: request("GET", "https://a.example/start", headers: ["Authorization": "Bearer S"]))
        #expect(stubs.requests.map { $0.url.port } == [nil, 8443])
        #expect(stubs.requests.last?.headers["Authorization"] == nil)
    }

    @Test(arguments: ["https://evil.example/x", "https://api.example.com:8443/x", "http://api.example.com/x"])
    func aConfigureThatMovesTheRequestLosesTheClientsCredentials(to destination: String) async throws {
        let session = MockURLSession()
        let client = HTTPClient(
            session: session, baseURL: URL(string: "https://api.example.com"), headers: ["Authorization": "Bearer S"])
        var sent = HTTPClient.Request<Data>.get("me")
        sent.configure = { $0.url = URL(string: destination) }
        _ = try await client.send(sent)
        #expect(session.requests.last?.url.absoluteString == destination)
        #expect(session.requests.last?.headers["Authorization"] == nil)
    }

    @Test func aConfigureThatStaysOnTheOriginKeepsTheClientsCredentials() async throws {
        let session = MockURLSession()
        let client = HTTPClient(
            session: session, baseURL: URL(string: "https://api.example.com"), headers: ["Authorization": "Bearer S"])
        var sent = HTTPClient.Request<Data>.get("me")
        sent.configure = { $0.url = URL(string: "https://API.example.com:443/other") }
        _ = try await client.send(sent)
        #expect(session.requests.last?.headers["Authorization"] == "Bearer S")
    }

    // MARK: Get's behaviours

    struct Person: Codable, Equatable, Sendable {
        let id: Int
    }

    @Test(arguments: [" ", "\n", " \r\n\t "])
    func aWhitespaceBodyForAnOptionalTypeIsNilOrATypedError(body: String) async throws {
        let session = MockURLSession()
        session.enqueue(.text(body))
        let client = HTTPClient(session: session)
        do {
            let response = try await client.send(HTTPClient.Request<Person?>.get(testURL("https://h/p")))
            #expect(response.value == nil)
        } catch {
            guard case .decodingFailed = error else {
                Issue.record("unexpected \(error)")
                return
            }
        }
    }

    @Test func aNullBodyWith204IsNil() async throws {
        let session = MockURLSession()
        session.enqueue(.json(raw: "null", status: 200), .status(204))
        let client = HTTPClient(session: session)
        #expect(try await client.send(HTTPClient.Request<Person?>.get(testURL("https://h/p"))).value == nil)
        #expect(try await client.send(HTTPClient.Request<Person?>.get(testURL("https://h/p"))).value == nil)
    }

    struct AlwaysRetry: Interceptor {
        let limit: Int
        var maximumRetries: Int { limit }
        func retry(
            _ request: URLRequest, after result: Result<HTTPClient.Response<Data>, HTTPClientError>, attempt: Int
        ) async throws -> RetryDecision {
            .retry
        }
    }

    @Test(arguments: [0, -1, Int.min])
    func anInterceptorAllowingNoRetriesStillSendsOnceAndEndsWithTheFailure(limit: Int) async throws {
        let session = MockURLSession()
        session.enqueue(.status(500), .status(500), .status(500))
        let client = HTTPClient(session: session, interceptors: [AlwaysRetry(limit: limit)], scheduler: ImmediateScheduler())
        let error = await #expect(throws: HTTPClientError.self) { try await client.get(testURL("https://h/x")) }
        #expect(session.requests.count == 1)
        #expect(error?.response?.statusCode == 500)
    }

    struct RetryUntilOK: Interceptor {
        var maximumRetries: Int { Int.max }
        func retry(
            _ request: URLRequest, after result: Result<HTTPClient.Response<Data>, HTTPClientError>, attempt: Int
        ) async throws -> RetryDecision {
            if case .success = result { return .doNotRetry }
            return .retry
        }
    }

    @Test func anInterceptorWithIntMaxAttemptsRetriesUntilItStops() async throws {
        let session = MockURLSession()
        session.enqueue(.status(500), .status(500), .status(500), .text("ok"))
        let client = HTTPClient(session: session, interceptors: [RetryUntilOK()], scheduler: ImmediateScheduler())
        #expect(try await client.get(testURL("https://h/x")).text == "ok")
        #expect(session.requests.count == 4)
    }

    @Test func aValidationThrowingOnTheRetriedAttemptKeepsTheAppsError() async throws {
        struct Banned: Error, Equatable {}
        let session = MockURLSession()
        session.enqueue(.status(503), .status(403))
        var client = HTTPClient(session: session, retryPolicy: RetryPolicy(maximumAttempts: 3), scheduler: ImmediateScheduler())
        client.validation = HTTPClient.Validation { response in
            if response.statusCode == 403 { throw Banned() }
            return response.isSuccessful
        }
        let error = await #expect(throws: HTTPClientError.self) { try await client.get(testURL("https://h/x")) }
        guard case .validationFailed(let response, _ as Banned)? = error else {
            Issue.record("expected validationFailed(Banned), got \(String(describing: error))")
            return
        }
        #expect(response.statusCode == 403)
        #expect(session.requests.count == 2)
    }

    @Test func hundredsOfConcurrent401sShareOneRefresh() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.get, "/me").respond(.status(401))
        stubs.stub(.get, "/me").matching(.header("Authorization", "Bearer new")).respond(.text("me"))
        let refreshes = Locked(0)
        let auth = BearerTokenInterceptor(token: "old") {
            refreshes.withLock { $0 += 1 }
            return "new"
        }
        let client = HTTPClient(session: MockURLSession(stubs: stubs), interceptors: [auth])
        let texts = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<300 { group.addTask { try await client.get(testURL("https://h/me")).text } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(texts.allSatisfy { $0 == "me" })
        #expect(refreshes.current == 1)
    }

    @Test func aFailedRefreshGivesTheOriginal401ToEveryConcurrentCaller() async throws {
        struct RefreshFailed: Error {}
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.post, "/me").respond(.status(401))
        let refreshes = Locked(0)
        let auth = BearerTokenInterceptor(token: "old") {
            refreshes.withLock { $0 += 1 }
            throw RefreshFailed()
        }
        let client = HTTPClient(session: MockURLSession(stubs: stubs), interceptors: [auth])
        let statuses = await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    do {
                        _ = try await client.send(.post(testURL("https://h/me"), body: .text("x")))
                        return nil
                    } catch { return (error as? HTTPClientError)?.response?.statusCode }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 == 401 })
        // A 401 that comes back after the failed refresh ended shares its failure.
        #expect(refreshes.current <= 2)
    }

    // MARK: More of each

    @Test func aThrottledBodyWhoseNextChunkIsLaterThanTheTimeoutTimesOut() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.get, "/t").respond(.status(200, body: Data(count: 1)).throttled(to: .totalTime(1)))
        let session = MockURLSession(stubs: stubs, simulatesLatency: true)
        var sent = request("GET", "https://h/t")
        sent.timeoutInterval = 0.2
        let result = await outcome(session, sent)
        #expect(throws: URLError.self) { try result.get() }
    }

    @Test func aMocktailHeaderLineWithoutAColonNamesFileAndLine() throws {
        let error = try #require(mocktailError("GET\n/a\n200\ntext/plain\nNoColonHere\n\nbody"))
        #expect(String(describing: error).contains("bad.tail"))
        #expect(String(describing: error).contains("5"))
    }

    @Test func aRawBinaryBodyIsServedExactlyOrRefused() async throws {
        var bytes = Data("GET\n/bin\n200\napplication/octet-stream\n\n".utf8)
        let body = Data([0x00, 0xFF, 0xFE, 0x80, 0x0D, 0x0A, 0xC3])
        bytes.append(body)
        try bytes.write(to: file("bin.tail"))
        do {
            let response = try await mocktailClient().0.get(testURL("https://h/bin"))
            #expect(response.body == body)
        } catch let error as FixtureError {
            #expect(String(describing: error).contains("bin.tail"))
        }
    }

    @Test func aMethodPatternIsARegexIgnoringCase() async throws {
        try folder.write("a.tail", "get|post\n/a\n200\ntext/plain\n\na")
        let (client, _) = try mocktailClient()
        #expect(try await client.get(testURL("https://h/a")).text == "a")
        #expect(try await client.send(.post(testURL("https://h/a"), body: .text("x"))).text == "a")
    }

    @Test func dumpingAResponseAndAnErrorHidesTheCredentials() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.get, "/me").respond(.json(raw: #"{"id": 1}"#))
        stubs.stub(.get, "/fail").respond(.text("BODYS3CRET", status: 500))
        let client = HTTPClient(
            session: MockURLSession(stubs: stubs), headers: ["Authorization": "Bearer HEADERS3CRET", "Cookie": "sid=COOKIES3CRET"])
        let response = try await client.send(HTTPClient.Request<Person>.get(testURL("https://h/me?access_token=URLS3CRET")))
        var dumped = ""
        dump(response, to: &dumped)
        dumped += String(describing: response) + String(reflecting: response)
        for child in Mirror(reflecting: response).children { dumped += String(describing: child.value) }
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.get(testURL("https://h/fail?access_token=URLS3CRET"))
        }
        dump(error, to: &dumped)
        dumped += String(describing: error) + String(reflecting: error)
        for secret in ["HEADERS3CRET", "COOKIES3CRET", "URLS3CRET"] { #expect(!dumped.contains(secret), "\(secret) printed") }
    }

    @Test func everyHopAndEveryAnsweredRequestSaysWhereItsAnswerCameFrom() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.get, "https://a.example/start").respond(.status(302, headers: ["Location": "/end"]))
        stubs.stub(.get, "https://a.example/end").respond(.text("end"))
        let session = MockURLSession(stubs: stubs)
        _ = try await session.data(for: request("GET", "https://a.example/start"))
        _ = try? await session.data(for: request("GET", "https://a.example/nothing"))
        #expect(stubs.requests.map(\.answerSource) == [.stub, .stub, nil])
        #expect(session.requests.map(\.answerSource) == [.stub, .stub, nil])
    }

    @Test func theURLProtocolTransportDropsAnAuthorizationOnARedirectToo() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.get, "https://a.example/start").respond(.status(302, headers: ["Location": "https://b.example/x"]))
        stubs.stub(.get, "https://b.example/x").respond(.text("x"))
        let session = stubs.makeURLSession()
        let (body, _) = try await session.data(for: request("GET", "https://a.example/start", headers: ["Authorization": "Bearer S"]))
        #expect(String(decoding: body, as: UTF8.self) == "x")
        #expect(stubs.requests.map { $0.headers["Authorization"] } == ["Bearer S", nil])
    }

    @Test func theURLProtocolTransportServesAMocktailFolderToHundredsAtOnce() async throws {
        for index in 0..<10 { try folder.write("f\(index).tail", "GET\n/item/\(index)$\n200\ntext/plain\n\n\(index)") }
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.serve(try MocktailFiles([folder.url]))
        let client = HTTPClient(session: stubs.makeURLSession())
        let texts = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<200 {
                group.addTask { (index, try await client.get(testURL("https://h/item/\(index % 10)")).text ?? "") }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(texts.count == 200)
        #expect(texts.allSatisfy { $0.value == "\($0.key % 10)" })
    }

    @Test func theURLProtocolTransportDeliversAThrottledBodyInChunks() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.get, "/t").respond(.status(200, body: Data(count: 1_400)).throttled(to: .gprs))
        let session = stubs.makeURLSession()
        let (chunks, _) = try await session.chunks(for: request("GET", "https://h/t"))
        var sizes: [Int] = []
        for try await chunk in chunks { sizes.append(chunk.count) }
        #expect(sizes.reduce(0, +) == 1_400)
        #expect(sizes.count >= 2)
    }

    @Test func aMalformedPercentEscapeDoesNotCrashAMatcher() {
        #expect(!matches(.query(["a": "1"]), "https://h/s?a=%ZZ"))
        #expect(!matches(.formBody(["a": "1"]), "https://h/f", method: "POST", body: "a=%ZZ&%"))
        #expect(matches(.query(["a": "1"]), "https://h/s?%61=1#frag"))
    }

    @Test func aBinaryFormBodyInAnUnmatchedReportDoesNotCrash() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.post, "/f").matching(.formBody(["a": "1"])).respond(.status(204))
        var sent = request("POST", "https://h/f", headers: ["Content-Type": "application/x-www-form-urlencoded"])
        sent.httpBody = Data([0xFF, 0x00, 0x3D, 0x26, 0xC3])
        _ = try? await MockURLSession(stubs: stubs).data(for: sent)
        #expect(failures.all.count == 1)
    }

    @Test func anInterceptorAllowingOneRetryEndsWithTheSecondFailure() async throws {
        let session = MockURLSession()
        session.enqueue(.status(500), .status(502), .status(503))
        let client = HTTPClient(session: session, interceptors: [AlwaysRetry(limit: 1)], scheduler: ImmediateScheduler())
        let error = await #expect(throws: HTTPClientError.self) { try await client.get(testURL("https://h/x")) }
        #expect(session.requests.count == 2)
        #expect(error?.response?.statusCode == 502)
    }

    @Test func aRedirectToAFileURLIsNotFollowedIntoTheDisk() async throws {
        try folder.write("secret.txt", "DISKS3CRET")
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.get, "https://a.example/start").respond(.status(302, headers: ["Location": file("secret.txt").absoluteString]))
        let result = await outcome(MockURLSession(stubs: stubs), request("GET", "https://a.example/start"))
        if case .success(let (body, _)) = result {
            #expect(!String(decoding: body, as: UTF8.self).contains("DISKS3CRET"))
        }
    }

    @Test(arguments: ["", "http://[::1", "javascript:alert(1)", "  ", "https://", "%%%"])
    func aGarbageLocationEndsWithoutACrash(location: String) async throws {
        let stubs = StubRegistry("hostile", reporting: .disabled)
        stubs.stub(.get, "https://a.example/start").respond(.status(302, headers: ["Location": location]))
        _ = await outcome(MockURLSession(stubs: stubs), request("GET", "https://a.example/start"))
        #expect(stubs.requests.count <= 2)
    }

    @Test func aCookieSetBeforeACrossOriginRedirectIsNotSentToTheOtherOrigin() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.get, "https://a.example/start")
            .respond(.status(302, headers: ["Location": "https://b.example/x", "Set-Cookie": "sid=42; Path=/"]))
        stubs.stub(.get, "https://b.example/x").respond(.text("x"))
        _ = try await MockURLSession(stubs: stubs).data(for: request("GET", "https://a.example/start"))
        #expect(stubs.requests.last?.headers["Cookie"] == nil)
    }

    @Test func anUploadFromAFileIsSentWholeAgainAfterATokenRefresh() async throws {
        try folder.write("upload.bin", String(repeating: "u", count: 10_000))
        let session = MockURLSession()
        session.enqueue(.status(401), .status(201))
        let auth = BearerTokenInterceptor(token: "old") { "new" }
        let client = HTTPClient(session: session, interceptors: [auth])
        let response = try await client.upload(.post(testURL("https://h/u")), from: .file(file("upload.bin")))
        #expect(response.statusCode == 201)
        #expect(session.requests.map(\.body.count) == [10_000, 10_000])
        #expect(session.requests.map { $0.headers["Authorization"] } == ["Bearer old", "Bearer new"])
    }

    @Test func aRefreshedTokenThatIsStillRefusedEndsTheRequest() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.get, "/me").respond(.status(401))
        let session = MockURLSession(stubs: stubs)
        let refreshes = Locked(0)
        let auth = BearerTokenInterceptor(token: "old") {
            refreshes.withLock { $0 += 1 }
            return "new"
        }
        let client = HTTPClient(session: session, interceptors: [auth])
        let error = await #expect(throws: HTTPClientError.self) { try await client.get(testURL("https://h/me")) }
        #expect(error?.response?.statusCode == 401)
        #expect(session.requests.count <= 3)
        #expect(refreshes.current <= 2)
    }

    @Test func anEmptyListOrAMissingPathIsAFixtureErrorNamingIt() throws {
        #expect(throws: FixtureError.self) { try MocktailFiles([]) }
        let missing = file("missing")
        let error = #expect(throws: FixtureError.self) { try MocktailFiles([missing]) }
        #expect(String(describing: error).contains("missing"))
        try FileManager.default.createDirectory(at: file("empty"), withIntermediateDirectories: true)
        let empty = #expect(throws: FixtureError.self) { try MocktailFiles([file("empty")]) }
        #expect(empty == .noMocktailFiles(file("empty").path))
    }

    @Test func whenTwoFilesMatchTheFirstInNameOrderAnswers() async throws {
        try folder.write("b.tail", "GET\n/x\n200\ntext/plain\n\nb")
        try folder.write("a.tail", "GET\n/x\n200\ntext/plain\n\na")
        try folder.write("B0.tail", "GET\n/x\n200\ntext/plain\n\nB0")
        let text = try await mocktailClient().0.get(testURL("https://h/x")).text
        #expect(text == "B0" || text == "a")
    }

    @Test func aMocktailHeaderValueKeepsItsColons() async throws {
        try folder.write("a.tail", "GET\n/a\n200\ntext/plain\nLink: <https://h/b?x=1>; rel=\"next\"\nX-Empty:\n\na")
        let response = try await mocktailClient().0.get(testURL("https://h/a"))
        #expect(response.headers["Link"] == #"<https://h/b?x=1>; rel="next""#)
    }

    @Test func aMocktailURLPatternSeesTheQuery() async throws {
        try folder.write("a.tail", "GET\n/users\\?page=2$\n200\ntext/plain\n\npage 2")
        let client = try mocktailClient().0
        #expect(try await client.get(testURL("https://h/users?page=2")).text == "page 2")
    }

    @Test func anExactEmptyQueryMatchesNoQueryAndALoneQuestionMark() {
        #expect(matches(.queryExactly([String: String]()), "https://h/s"))
        #expect(matches(.queryExactly([String: String]()), "https://h/s?"))
        #expect(!matches(.queryExactly([String: String]()), "https://h/s?a"))
    }

    @Test func aFormWithACharsetOrAStreamedBodyStillMatches() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.post, "/f").matching(.formBodyExactly(["user": "ada lovelace"])).respond(.status(204))
        let session = MockURLSession(stubs: stubs)
        let charset = request(
            "POST", "https://h/f", headers: ["Content-Type": "application/x-www-form-urlencoded; charset=utf-8"],
            body: Data("user=ada+lovelace".utf8))
        let streamed = request("POST", "https://h/f", body: Data("user=ada%20lovelace".utf8), streamed: true)
        #expect((try await session.data(for: charset).1 as? HTTPURLResponse)?.statusCode == 204)
        #expect((try await session.data(for: streamed).1 as? HTTPURLResponse)?.statusCode == 204)
        #expect(failures.all.isEmpty)
    }

    @Test func aMissReportOverHundredsOfFilesNamesEachFile() async throws {
        for index in 0..<300 { try folder.write(String(format: "f%03d.tail", index), "GET\n/item/\(index)$\n200\ntext/plain\n\n\(index)") }
        let (client, _) = try mocktailClient()
        _ = try? await client.get(testURL("https://h/nothing"))
        let report = try #require(failures.all.first)
        // As documented, every file tried is named: linear in the folder (about 120 characters a file).
        #expect(report.contains("f000.tail"))
        #expect(report.contains("f299.tail"))
    }

    @Test func unicodeInAQueryIsComparedDecoded() {
        #expect(matches(.query(["name": "Zoë"]), "https://h/s?name=Zo%C3%AB"))
        #expect(matches(.query(["näme": "x"]), "https://h/s?n%C3%A4me=x"))
    }

    @Test func aBearerInterceptorAddsNoTokenToARequestMovedElsewhereEvenAfterA401() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.get, "https://evil.example/me").respond(.status(401), .text("ok"))
        let auth = BearerTokenInterceptor(token: "OLDS3CRET") { "NEWS3CRET" }
        let client = HTTPClient(
            session: MockURLSession(stubs: stubs), baseURL: URL(string: "https://api.example.com"),
            headers: ["Proxy-Authorization": "Basic P", "Cookie": "sid=1"], interceptors: [auth])
        var sent = HTTPClient.Request<Data>.get("me")
        sent.configure = { $0.url = URL(string: "https://evil.example/me") }
        _ = try? await client.send(sent)
        #expect(!stubs.requests.isEmpty)
        for recorded in stubs.requests {
            #expect(recorded.headers["Authorization"] == nil)
            #expect(recorded.headers["Proxy-Authorization"] == nil)
            #expect(recorded.headers["Cookie"] == nil)
        }
    }

    @Test func aCredentialTheConfigureClosureSetsItselfIsSent() async throws {
        let session = MockURLSession()
        let client = HTTPClient(session: session, baseURL: URL(string: "https://api.example.com"), headers: ["Authorization": "Bearer S"])
        var sent = HTTPClient.Request<Data>.get("me")
        sent.configure = {
            $0.url = URL(string: "https://other.example/me")
            $0.setValue("Bearer OTHER", forHTTPHeaderField: "Authorization")
        }
        _ = try await client.send(sent)
        #expect(session.requests.last?.headers["Authorization"] == "Bearer OTHER")
    }

    @Test func verifyReportsAnUnmatchedRequestAndAnUnusedStubInOneCall() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.get, "/never").respond(.status(204))
        _ = try? await MockURLSession(stubs: stubs).data(for: request("GET", "https://h/missing"))
        let before = failures.all.count
        stubs.verify()
        let reported = failures.all.dropFirst(before).joined(separator: "\n")
        #expect(reported.contains("/never"))
        #expect(reported.contains("/missing"))
        #expect(stubs.requests.last?.url.path == "/missing")
    }

    @Test func theURLProtocolTransportHoldsAThrottledBodyToTheTimeoutToo() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.get, "/t").respond(.status(200, body: Data(count: 1)).throttled(to: .totalTime(1)))
        var sent = request("GET", "https://h/t")
        sent.timeoutInterval = 0.2
        let session = stubs.makeURLSession()
        let result: Result<(Data, URLResponse), any Error>
        do { result = .success(try await session.data(for: sent)) } catch { result = .failure(error) }
        #expect(throws: URLError.self) { try result.get() }
    }

    @Test func aWhitespaceBodyForAnOptionalTypeIsADecodingFailureAsInGet() async throws {
        let session = MockURLSession()
        session.enqueue(.text(" \n"))
        let error = await #expect(throws: HTTPClientError.self) {
            try await HTTPClient(session: session).send(HTTPClient.Request<Person?>.get(testURL("https://h/p")))
        }
        guard case .decodingFailed? = error else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
    }

    @Test func aSameOrigin307KeepsMethodAndBodyButDropsEveryReservedHeader() async throws {
        let stubs = StubRegistry("hostile", reporting: failures.reporting)
        stubs.stub(.post, "https://a.example/old").respond(.status(307, headers: ["Location": "/new"]))
        stubs.stub(.post, "https://a.example/new").respond(.status(201))
        let reserved = [
            "Authorization": "Bearer S", "Proxy-Authorization": "Basic P", "Proxy-Authenticate": "Basic",
            "WWW-Authenticate": "Bearer", "Connection": "close", "Host": "a.example", "Cookie": "c=1",
        ]
        let (_, response) = try await MockURLSession(stubs: stubs).data(
            for: request("POST", "https://a.example/old", headers: reserved.merging(["X-Kept": "yes"]) { $1 }, body: Data("payload".utf8)))
        #expect((response as? HTTPURLResponse)?.statusCode == 201)
        let hop = try #require(stubs.requests.last)
        #expect(hop.method == "POST")
        #expect(hop.body == Data("payload".utf8))
        #expect(hop.headers["X-Kept"] == "yes")
        for name in reserved.keys { #expect(hop.headers[name] == nil, "\(name) carried to the next hop") }
    }
}
