import Foundation
import HTTPClient
import HTTPClientMocks

func testURL(_ string: String) -> URL {
    guard let url = URL(string: string) else { preconditionFailure("bad test URL \(string)") }
    return url
}

func request(
    _ method: String = "GET", _ url: String, headers: [String: String] = [:], body: Data? = nil, streamed: Bool = false
) -> URLRequest {
    var request = URLRequest(url: testURL(url))
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    if let body {
        if streamed { request.httpBodyStream = InputStream(data: body) } else { request.httpBody = body }
    }
    return request
}

/// A registry whose failures are collected instead of failing the test: for tests *about*
/// failure reports.
final class CollectedFailures: Sendable {
    let messages = Locked<[(message: String, site: CallSite)]>([])
    var reporting: FailureReporting {
        .custom { [messages] message, site in messages.withLock { $0.append((message, site)) } }
    }
    var all: [String] { messages.current.map(\.message) }
}

extension StubRegistry {
    /// Resolves `request` and returns the status it would answer, or nil when it is not a response.
    func status(for request: URLRequest) -> Int? {
        guard case .respond(let response, _, _) = resolve(request),
            let http = response.completionArguments(for: request).1 as? HTTPURLResponse
        else { return nil }
        return http.statusCode
    }
}
