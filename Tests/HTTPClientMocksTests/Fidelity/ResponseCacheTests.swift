import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// Where nothing is cached (documented), every request reaches the stubs and each answer arrives
/// as the stub gave it: each test expects that there (`keeps` is false).
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

    @Test(arguments: Transport.allCases)
    func aFreshCachedAnswerIsServedWithoutAskingTheStub(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue")
            .respond(.text("v1", headers: ["Cache-Control": "max-age=3600"]).cached(), .text("v2"))
        let configuration = configuration()
        let session = try transport.session(stubs, configuration: configuration)
        let keeps = !transport.differs(in: .responseCache)
        let (first, _) = try await session.data(for: catalogue)
        let (second, response) = try await session.data(for: catalogue)
        #expect(first == Data("v1".utf8))
        #expect(second == Data((keeps ? "v1" : "v2").utf8))
        #expect(response.status == 200)
        #expect(stub.callCount == (keeps ? 1 : 2))
        #expect(configuration.urlCache?.cachedResponse(for: catalogue)?.data == (keeps ? Data("v1".utf8) : nil))
    }

    @Test(arguments: Transport.allCases)
    func anAnswerNotMarkedCacheableIsNeverStored(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue").respond(.text("v1", headers: ["Cache-Control": "max-age=3600"]))
        let configuration = configuration()
        let session = try transport.session(stubs, configuration: configuration)
        _ = try await session.data(for: catalogue)
        _ = try await session.data(for: catalogue)
        #expect(stub.callCount == 2)
        #expect(configuration.urlCache?.cachedResponse(for: catalogue) == nil)
    }

    @Test(arguments: Transport.allCases)
    func aStaleAnswerIsRevalidatedAndA304DeliversTheStoredBody(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue")
            .respond(.text("kept", headers: ["Cache-Control": "max-age=0", "ETag": "\"v1\""]).cached(), .status(304))
        let session = try transport.session(stubs, configuration: configuration())
        let keeps = !transport.differs(in: .responseCache)
        _ = try await session.data(for: catalogue)
        let (data, response) = try await session.data(for: catalogue)
        #expect(data == Data((keeps ? "kept" : "").utf8))
        #expect(response.status == (keeps ? 200 : 304))
        #expect(stub.calls.map { $0.headers["If-None-Match"] } == [nil, keeps ? "\"v1\"" : nil])
    }

    @Test(arguments: Transport.allCases)
    func aChangedAnswerReplacesTheStoredOne(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let headers: HTTPHeaders = ["Cache-Control": "no-cache", "ETag": "\"v1\""]
        stubs.stub(.get, "/catalogue").respond(.text("v1", headers: headers).cached(), .text("v2", headers: headers).cached())
        let configuration = configuration()
        let session = try transport.session(stubs, configuration: configuration)
        _ = try await session.data(for: catalogue)
        let (data, _) = try await session.data(for: catalogue)
        #expect(data == Data("v2".utf8))
        let keeps = !transport.differs(in: .responseCache)
        #expect(configuration.urlCache?.cachedResponse(for: catalogue)?.data == (keeps ? Data("v2".utf8) : nil))
    }

    @Test(arguments: Transport.allCases)
    func returnCacheDataDontLoadFailsWhenNothingIsStoredAndSendsNothing(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue").respond(.text("v1")).allowingUnused()
        let session = try transport.session(stubs, configuration: configuration(policy: .returnCacheDataDontLoad))
        if transport.differs(in: .responseCache) {
            #expect(try await session.data(for: catalogue).0 == Data("v1".utf8))
            #expect(stub.callCount == 1)
            return
        }
        let error = await #expect(throws: URLError.self) { try await session.data(for: catalogue) }
        #expect(error?.code == .resourceUnavailable)
        #expect(stub.callCount == 0)
    }

    @Test(arguments: Transport.allCases)
    func returnCacheDataElseLoadUsesEvenAStaleAnswer(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue").respond(.text("old", headers: ["Cache-Control": "max-age=0"]).cached(), .text("new"))
        let session = try transport.session(stubs, configuration: configuration(policy: .returnCacheDataElseLoad))
        let keeps = !transport.differs(in: .responseCache)
        _ = try await session.data(for: catalogue)
        let (data, _) = try await session.data(for: catalogue)
        #expect(data == Data((keeps ? "old" : "new").utf8))
        #expect(stub.callCount == (keeps ? 1 : 2))
    }

    @Test(arguments: Transport.allCases)
    func aRequestThatReloadsIgnoresTheCache(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue")
            .respond(.text("v1", headers: ["Cache-Control": "max-age=3600"]).cached(), .text("v2"))
        let session = try transport.session(stubs, configuration: configuration())
        _ = try await session.data(for: catalogue)
        var reload = catalogue
        reload.cachePolicy = .reloadIgnoringLocalCacheData
        let (data, _) = try await session.data(for: reload)
        #expect(data == Data("v2".utf8))
        #expect(stub.callCount == 2)
    }

    @Test(arguments: Transport.allCases)
    func noStoreAnswersAndOtherMethodsAreNotCached(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/private").respond(.text("secret", headers: ["Cache-Control": "no-store, max-age=3600"]).cached())
        stubs.stub(.post, "/catalogue").respond(.text("made", headers: ["Cache-Control": "max-age=3600"]).cached())
        let configuration = configuration()
        let session = try transport.session(stubs, configuration: configuration)
        let privateRequest = URLRequest(url: testURL("https://h/private"))
        _ = try await session.data(for: privateRequest)
        var post = catalogue
        post.httpMethod = "POST"
        _ = try await session.data(for: post)
        #expect(configuration.urlCache?.cachedResponse(for: privateRequest) == nil)
        #expect(configuration.urlCache?.cachedResponse(for: catalogue) == nil)
    }

    @Test(arguments: Transport.allCases)
    func anExpiresDateInThePastMakesTheAnswerStale(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue")
            .respond(.text("v1", headers: ["Expires": "Thu, 01 Jan 1998 00:00:00 GMT"]).cached(), .text("v2"))
        let session = try transport.session(stubs, configuration: configuration())
        _ = try await session.data(for: catalogue)
        let (data, _) = try await session.data(for: catalogue)
        #expect(data == Data("v2".utf8))
        #expect(stub.callCount == 2)
    }

    @Test(arguments: Transport.allCases)
    func anAnswerPutInTheCacheByHandIsServed(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue").respond(.text("from the stub")).allowingUnused()
        let configuration = configuration(policy: .returnCacheDataElseLoad)
        let url = try #require(catalogue.url)
        let kept = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:]))
        configuration.urlCache?.storeCachedResponse(CachedURLResponse(response: kept, data: Data("kept".utf8)), for: catalogue)
        let (data, _) = try await transport.session(stubs, configuration: configuration).data(for: catalogue)
        let keeps = !transport.differs(in: .responseCache)
        #expect(data == Data((keeps ? "kept" : "from the stub").utf8))
        #expect(stub.callCount == (keeps ? 0 : 1))
    }

    @Test(arguments: Transport.allCases)
    func anAnswerThatVariesOnAHeaderIsNotServedToADifferentValue(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue")
            .respond(
                .text("ada's", headers: ["Cache-Control": "max-age=3600", "Vary": "Authorization"]).cached(),
                .text("grace's", headers: ["Cache-Control": "max-age=3600", "Vary": "Authorization"]).cached())
        let session = try transport.session(stubs, configuration: configuration())
        let (first, _) = try await session.data(for: request("GET", "https://h/catalogue", headers: ["Authorization": "Bearer ada"]))
        let (second, _) = try await session.data(for: request("GET", "https://h/catalogue", headers: ["Authorization": "Bearer grace"]))
        #expect(first == Data("ada's".utf8))
        #expect(second == Data("grace's".utf8))
        #expect(stub.callCount == 2)
    }

    @Test(arguments: Transport.allCases)
    func anAnswerThatVariesOnAHeaderIsServedToTheSameValue(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue")
            .respond(.text("v1", headers: ["Cache-Control": "max-age=3600", "Vary": "Accept-Language"]).cached(), .text("v2"))
        let session = try transport.session(stubs, configuration: configuration())
        let french = request("GET", "https://h/catalogue", headers: ["Accept-Language": "fr"])
        _ = try await session.data(for: french)
        let (second, _) = try await session.data(for: french)
        let keeps = !transport.differs(in: .responseCache)
        #expect(second == Data((keeps ? "v1" : "v2").utf8))
        #expect(stub.callCount == (keeps ? 1 : 2))
    }

    @Test(arguments: Transport.allCases)
    func anAnswerThatVariesOnEverythingIsNeverServedFromTheCache(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/catalogue")
            .respond(.text("v1", headers: ["Cache-Control": "max-age=3600", "Vary": "*"]).cached(), .text("v2"))
        let session = try transport.session(stubs, configuration: configuration(policy: .returnCacheDataElseLoad))
        _ = try await session.data(for: catalogue)
        let (second, _) = try await session.data(for: catalogue)
        #expect(second == Data("v2".utf8))
        #expect(stub.callCount == 2)
    }
}
