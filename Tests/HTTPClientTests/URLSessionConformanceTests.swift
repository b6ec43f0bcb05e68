import Foundation
import HTTPClient
import Testing

/// Answers every request with 200 and a body that echoes the method, URL and body, so a test
/// can see that a real `URLSession` carried the client's request through Foundation.
final class EchoURLProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let url = request.url,
            let response = HTTPURLResponse(
                url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: ["x-echo": "yes"])
        else {
            client?.urlProtocol(self, didFailWithError: URLError(.badURL))
            return
        }
        let body = request.httpBody.map { String(decoding: $0, as: UTF8.self) } ?? ""
        let echo = "\(request.httpMethod ?? "?") \(url.absoluteString) \(body)"
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: Data(echo.utf8))
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}

@Suite("URLSession as URLSessionProtocol")
struct URLSessionConformanceTests {
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [EchoURLProtocol.self]
        return URLSession(configuration: configuration)
    }()

    @Test func asyncRequestGoesThroughARealSession() async throws {
        let client = HTTPClient(session: Self.session)
        let response = try await client.post(url("https://example.com/echo"), body: Data("hi".utf8))
        #expect(response.text == "POST https://example.com/echo hi")
        #expect(response.headers["X-Echo"] == "yes")
    }

    @Test func completionRequestGoesThroughARealSessionOnce() async throws {
        let client = HTTPClient(session: Self.session)
        let recorder = CompletionRecorderBox()
        let result = await withCheckedContinuation { continuation in
            client.get(url: url("https://example.com/a")) { result in
                recorder.count.withLock { $0 += 1 }
                continuation.resume(returning: result)
            }
        }
        #expect(try result.get().text == "GET https://example.com/a ")
        #expect(recorder.count.current == 1)
    }

    @Test func theExtensionForwardsToFoundationsDataTask() {
        let task = Self.session.makeDataTask(with: URLRequest(url: url("https://example.com/"))) { _, _, _ in }
        #expect(task is URLSessionDataTask)
        task.cancel()
    }
}

final class CompletionRecorderBox: Sendable {
    let count = Locked(0)
}
