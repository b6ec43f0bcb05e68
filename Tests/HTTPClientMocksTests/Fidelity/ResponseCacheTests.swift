import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@Suite("The session's response cache, as a real session keeps it")
struct ResponseCacheTests {
    /// A configuration with a cache of its own, so tests never share one.
    private func configuration(policy: URLRequest.CachePolicy = .useProtocolCachePolicy) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
        configuration.requestCachePolicy = policy
        return configuration
    }

    private let catalogue = URLRequest(url: testURL("https://h/catalogue"))

    @Test(arguments: StubTransport.allCases)
    func aFreshCachedAnswerIsServedWithoutAskingTheStub(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue")
            .respond(.text("v1", headers: ["Cache-Control": "max-age=3600"]).cached(), .text("v2"))
        let configuration = configuration()
        let session = transport.session(stubs, configuration: configuration)
        let (first, _) = try await session.data(for: catalogue)
        let (second, response) = try await session.data(for: catalogue)
        #expect(first == Data("v1".utf8))
        #expect(second == Data("v1".utf8))
        #expect(response.status == 200)
        #expect(stub.callCount == 1)
        #expect(configuration.urlCache?.cachedResponse(for: catalogue)?.data == Data("v1".utf8))
    }

    @Test(arguments: StubTransport.allCases)
    func anAnswerNotMarkedCacheableIsNeverStored(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue").respond(.text("v1", headers: ["Cache-Control": "max-age=3600"]))
        let configuration = configuration()
        let session = transport.session(stubs, configuration: configuration)
        _ = try await session.data(for: catalogue)
        _ = try await session.data(for: catalogue)
        #expect(stub.callCount == 2)
        #expect(configuration.urlCache?.cachedResponse(for: catalogue) == nil)
    }

    @Test(arguments: StubTransport.allCases)
    func aStaleAnswerIsRevalidatedAndA304DeliversTheStoredBody(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue")
            .respond(.text("kept", headers: ["Cache-Control": "max-age=0", "ETag": "\"v1\""]).cached(), .status(304))
        let session = transport.session(stubs, configuration: configuration())
        _ = try await session.data(for: catalogue)
        let (data, response) = try await session.data(for: catalogue)
        #expect(data == Data("kept".utf8))
        #expect(response.status == 200)
        #expect(stub.calls.map { $0.headers["If-None-Match"] } == [nil, "\"v1\""])
    }

    @Test(arguments: StubTransport.allCases)
    func aChangedAnswerReplacesTheStoredOne(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        let headers: HTTPHeaders = ["Cache-Control": "no-cache", "ETag": "\"v1\""]
        stubs.stub(.get, "/catalogue").respond(.text("v1", headers: headers).cached(), .text("v2", headers: headers).cached())
        let configuration = configuration()
        let session = transport.session(stubs, configuration: configuration)
        _ = try await session.data(for: catalogue)
        let (data, _) = try await session.data(for: catalogue)
        #expect(data == Data("v2".utf8))
        #expect(configuration.urlCache?.cachedResponse(for: catalogue)?.data == Data("v2".utf8))
    }

    @Test(arguments: StubTransport.allCases)
    func returnCacheDataDontLoadFailsWhenNothingIsStoredAndSendsNothing(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue").respond(.text("v1"))
        let session = transport.session(stubs, configuration: configuration(policy: .returnCacheDataDontLoad))
        let error = await #expect(throws: URLError.self) { try await session.data(for: catalogue) }
        #expect(error?.code == .resourceUnavailable)
        #expect(stub.callCount == 0)
    }

    @Test(arguments: StubTransport.allCases)
    func returnCacheDataElseLoadUsesEvenAStaleAnswer(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue").respond(.text("old", headers: ["Cache-Control": "max-age=0"]).cached(), .text("new"))
        let session = transport.session(stubs, configuration: configuration(policy: .returnCacheDataElseLoad))
        _ = try await session.data(for: catalogue)
        let (data, _) = try await session.data(for: catalogue)
        #expect(data == Data("old".utf8))
        #expect(stub.callCount == 1)
    }

    @Test(arguments: StubTransport.allCases)
    func aRequestThatReloadsIgnoresTheCache(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue")
            .respond(.text("v1", headers: ["Cache-Control": "max-age=3600"]).cached(), .text("v2"))
        let session = transport.session(stubs, configuration: configuration())
        _ = try await session.data(for: catalogue)
        var reload = catalogue
        reload.cachePolicy = .reloadIgnoringLocalCacheData
        let (data, _) = try await session.data(for: reload)
        #expect(data == Data("v2".utf8))
        #expect(stub.callCount == 2)
    }

    @Test func noStoreAnswersAndOtherMethodsAreNotCached() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/private").respond(.text("secret", headers: ["Cache-Control": "no-store, max-age=3600"]).cached())
        stubs.stub(.post, "/catalogue").respond(.text("made", headers: ["Cache-Control": "max-age=3600"]).cached())
        let configuration = configuration()
        let session = MockURLSession(stubs: stubs, configuration: configuration)
        let privateRequest = URLRequest(url: testURL("https://h/private"))
        _ = try await session.data(for: privateRequest)
        var post = catalogue
        post.httpMethod = "POST"
        _ = try await session.data(for: post)
        #expect(configuration.urlCache?.cachedResponse(for: privateRequest) == nil)
        #expect(configuration.urlCache?.cachedResponse(for: catalogue) == nil)
    }

    @Test func anExpiresDateInThePastMakesTheAnswerStale() async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue")
            .respond(.text("v1", headers: ["Expires": "Thu, 01 Jan 1998 00:00:00 GMT"]).cached(), .text("v2"))
        let session = MockURLSession(stubs: stubs, configuration: configuration())
        _ = try await session.data(for: catalogue)
        let (data, _) = try await session.data(for: catalogue)
        #expect(data == Data("v2".utf8))
        #expect(stub.callCount == 2)
    }

    @Test(arguments: StubTransport.allCases)
    func anAnswerPutInTheCacheByHandIsServed(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue").respond(.text("from the stub")).allowingUnused()
        let configuration = configuration(policy: .returnCacheDataElseLoad)
        let url = try #require(catalogue.url)
        let kept = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:]))
        configuration.urlCache?.storeCachedResponse(CachedURLResponse(response: kept, data: Data("kept".utf8)), for: catalogue)
        let (data, _) = try await transport.session(stubs, configuration: configuration).data(for: catalogue)
        #expect(data == Data("kept".utf8))
        #expect(stub.callCount == 0)
    }

    @Test(arguments: StubTransport.allCases)
    func anAnswerThatVariesOnAHeaderIsNotServedToADifferentValue(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue")
            .respond(
                .text("ada's", headers: ["Cache-Control": "max-age=3600", "Vary": "Authorization"]).cached(),
                .text("grace's", headers: ["Cache-Control": "max-age=3600", "Vary": "Authorization"]).cached())
        let session = transport.session(stubs, configuration: configuration())
        let (first, _) = try await session.data(for: request("GET", "https://h/catalogue", headers: ["Authorization": "Bearer ada"]))
        let (second, _) = try await session.data(for: request("GET", "https://h/catalogue", headers: ["Authorization": "Bearer grace"]))
        #expect(first == Data("ada's".utf8))
        #expect(second == Data("grace's".utf8))
        #expect(stub.callCount == 2)
    }

    @Test(arguments: StubTransport.allCases)
    func anAnswerThatVariesOnAHeaderIsServedToTheSameValue(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue")
            .respond(.text("v1", headers: ["Cache-Control": "max-age=3600", "Vary": "Accept-Language"]).cached(), .text("v2"))
        let session = transport.session(stubs, configuration: configuration())
        let french = request("GET", "https://h/catalogue", headers: ["Accept-Language": "fr"])
        _ = try await session.data(for: french)
        let (second, _) = try await session.data(for: french)
        #expect(second == Data("v1".utf8))
        #expect(stub.callCount == 1)
    }

    @Test(arguments: StubTransport.allCases)
    func anAnswerThatVariesOnEverythingIsNeverServedFromTheCache(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue")
            .respond(.text("v1", headers: ["Cache-Control": "max-age=3600", "Vary": "*"]).cached(), .text("v2"))
        let session = transport.session(stubs, configuration: configuration(policy: .returnCacheDataElseLoad))
        _ = try await session.data(for: catalogue)
        let (second, _) = try await session.data(for: catalogue)
        #expect(second == Data("v2".utf8))
        #expect(stub.callCount == 2)
    }
}
