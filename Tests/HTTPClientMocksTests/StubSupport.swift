import Foundation
import HTTPClient
import HTTPClientMocks
@_spi(Engine) import HTTPClientStubs

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
        .forwarding { [messages] message, site in messages.withLock { $0.append((message, site)) } }
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

/// The body of the answer `stubs` gives `method url` with `headers`, as text; `nil` when no stub
/// answers. For routing tests: each stub answers with text naming itself.
func answer(
    _ stubs: StubRegistry, _ url: String, method: String = "GET", headers: [String: String] = [:]
) -> String? {
    let sent = request(method, url, headers: headers)
    guard case .respond(let response, _, _) = stubs.resolve(sent, reportingMisses: false),
        let body = response.completionArguments(for: sent).0
    else { return nil }
    return String(decoding: body, as: UTF8.self)
}

/// SplitMix64: a failure names a seed that repeats it.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Whether `resume()` right after a task's URLProtocol finished loading can trap in Foundation:
/// swift-corelibs-foundation's, up to 6.3 at least (README's Platforms table).
#if canImport(FoundationNetworking)
let corelibsTrapsOnResumeRightAfterAProtocolFinished = true
#else
let corelibsTrapsOnResumeRightAfterAProtocolFinished = false
#endif

/// How long a test waits for an event it expects (a request held, a delivery) before it fails:
/// far past what the slowest run needs. The library's 10-second default suits one test at a
/// time; this suite runs a thousand at once on two cores, where a task can wait tens of seconds
/// for a thread. A wait returns as soon as its event happens, so the length costs nothing.
let eventWait = Duration.seconds(600)
