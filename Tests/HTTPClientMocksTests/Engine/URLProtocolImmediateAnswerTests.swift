import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient
@testable import HTTPClientStubs

/// An answer with nothing to wait for reaches the client from inside `startLoading`, on its
/// thread, the way a minimal URLProtocol answers: no hop through the client thread.
@Suite("URLProtocol transport, answers with nothing to wait for")
struct URLProtocolImmediateAnswerTests {
    @Test func anAnswerWithNothingToWaitForReachesTheClientBeforeStartLoadingReturns() throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/items/1").respond(.text("ok"))
        let client = RecordingClient()
        let loader = try Self.loader(for: stubs, url: "https://h/items/1", client: client)

        loader.startLoading()

        #expect(client.calls == ["response 200", "data ok", "finished"])
        #expect(client.madeOnOneThread)
    }

    @Test func aFailureWithNothingToWaitForReachesTheClientBeforeStartLoadingReturns() throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/items/1").respond(.error(URLError(.notConnectedToInternet)))
        let client = RecordingClient()
        let loader = try Self.loader(for: stubs, url: "https://h/items/1", client: client)

        loader.startLoading()

        #expect(client.calls == ["failed \(URLError.notConnectedToInternet.rawValue)"])
    }

    @Test func anAnswerWithLatencyIsNotDeliveredInsideStartLoading() throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/items/1").respond(.text("ok").delayed(by: 60))
        let client = RecordingClient()
        let loader = try Self.loader(for: stubs, url: "https://h/items/1", client: client)

        loader.startLoading()

        #expect(client.calls.isEmpty)
        loader.stopLoading()
    }

    private static func loader(for stubs: StubRegistry, url: String, client: RecordingClient) throws -> URLProtocol {
        let protocolClass = try #require(stubs.urlProtocolClass as? URLProtocol.Type)
        return protocolClass.init(request: URLRequest(url: testURL(url)), cachedResponse: nil, client: client)
    }
}

/// Records each client call, and whether all came on the thread of the first.
// @unchecked: every property is behind `state`'s lock.
private final class RecordingClient: NSObject, URLProtocolClient, @unchecked Sendable {
    private let state = Locked<(calls: [String], threads: Set<UInt>)>(([], []))

    var calls: [String] { state.current.calls }
    var madeOnOneThread: Bool { state.current.threads == [ClientThread.currentThreadIdentity] }

    private func record(_ call: String) {
        let thread = ClientThread.currentThreadIdentity
        state.withLock {
            $0.calls.append(call)
            $0.threads.insert(thread)
        }
    }

    func urlProtocol(_ protocol: URLProtocol, wasRedirectedTo request: URLRequest, redirectResponse: URLResponse) {
        record("redirected")
    }

    func urlProtocol(_ protocol: URLProtocol, cachedResponseIsValid cachedResponse: CachedURLResponse) {
        record("cached response is valid")
    }

    func urlProtocol(_ protocol: URLProtocol, didReceive response: URLResponse, cacheStoragePolicy policy: URLCache.StoragePolicy) {
        record("response \((response as? HTTPURLResponse)?.statusCode ?? 0)")
    }

    func urlProtocol(_ protocol: URLProtocol, didLoad data: Data) {
        record("data \(String(decoding: data, as: UTF8.self))")
    }

    func urlProtocolDidFinishLoading(_ protocol: URLProtocol) {
        record("finished")
    }

    func urlProtocol(_ protocol: URLProtocol, didFailWithError error: any Error) {
        record("failed \((error as? URLError)?.code.rawValue ?? 0)")
    }

    func urlProtocol(_ protocol: URLProtocol, didReceive challenge: URLAuthenticationChallenge) {
        record("challenge")
    }

    func urlProtocol(_ protocol: URLProtocol, didCancel challenge: URLAuthenticationChallenge) {
        record("challenge cancelled")
    }
}
