import Foundation
import HTTPClient
import HTTPClientStubs

/// The registries of the per-configuration table (11) and of the peer table (`ratios --peers`):
/// `count` stubs that differ in one way, with the requests that the first and the last
/// registered answer.
public enum StubConfiguration: String, CaseIterable, Sendable {
    case exactPaths = "exact paths (`/items/N`)"
    case queryVariants = "one path, query variants (`/items?page=N&size=20`)"
    case querySubsets = "one path, `.query([\"page\": N])`"
    case templates = "templates sharing a first segment (`/v1/resN/{id}`)"
    case headers = "one path, `.header(\"X-Variant\", N)`"
    case jsonBodies = "one path, `.jsonBody(containing: [\"variant\": N])`"
    /// Not indexed: two header conditions under `||`, tested stub by stub.
    case scannedHeaders = "one path, `.header(A, N) || .header(B, N)` (scanned)"
    /// Not indexed: an exact body, tested stub by stub.
    case scannedBodies = "one path, `.body(\"variant N\")` (scanned)"

    /// How a stub names where it answers: a full URL fixes the scheme and host too.
    public enum Registration: String, CaseIterable, Sendable {
        /// `https://api.example.com/items/1`
        case fullURL = "url"
        /// `/items/1`
        case path
    }

    /// A short name for command lines (`ratios --profile-peer`).
    public var name: String {
        switch self {
        case .exactPaths: "paths"
        case .queryVariants: "query"
        case .querySubsets: "query-subset"
        case .templates: "templates"
        case .headers: "headers"
        case .jsonBodies: "json"
        case .scannedHeaders: "scanned-headers"
        case .scannedBodies: "scanned-bodies"
        }
    }

    /// Whether the registry finds the stub without testing the others.
    public var isIndexed: Bool { ![.jsonBodies, .scannedHeaders, .scannedBodies].contains(self) }

    /// A registry of `count` stubs, and requests for the first and the last registered. Without
    /// `registration`, query variants are registered by full URL and the others by path.
    public func registry(
        stubs count: Int, registeredBy registration: Registration? = nil
    ) -> (registry: StubRegistry, first: URLRequest, last: URLRequest) {
        let stubs = StubRegistry("\(self)", reporting: .disabled)
        let origin = (registration ?? (self == .queryVariants ? .fullURL : .path)) == .fullURL ? "https://api.example.com" : ""
        for index in 0..<count { register(index, in: stubs, origin: origin) }
        return (stubs, request(0), request(count - 1))
    }

    /// Registers stub `index`; `origin` (a scheme and host, or nothing) starts its target.
    private func register(_ index: Int, in stubs: StubRegistry, origin: String) {
        let answer = MockResponse.status(200, body: Data("ok".utf8))
        let target = { (pathAndQuery: String) in StubTarget(origin + pathAndQuery) }
        switch self {
        case .exactPaths: stubs.stub(.get, target("/items/\(index)")).respond(answer)
        case .queryVariants: stubs.stub(.get, target("/items?page=\(index)&size=20")).respond(answer)
        case .querySubsets: stubs.stub(.get, target("/items")).matching(.query(["page": "\(index)"])).respond(answer)
        case .templates: stubs.stub(.get, target("/v1/res\(index)/{id}")).respond(answer)
        case .headers: stubs.stub(.get, target("/items")).matching(.header("X-Variant", "\(index)")).respond(answer)
        case .jsonBodies:
            stubs.stub(.post, target("/items")).matching(.jsonBody(containing: .object(["variant": .integer(Int64(index))])))
                .respond(answer)
        case .scannedHeaders:
            stubs.stub(.get, target("/items")).matching(.header("X-Variant", "\(index)") || .header("X-Other", "\(index)"))
                .respond(answer)
        case .scannedBodies: stubs.stub(.post, target("/items")).matching(.body("variant \(index)")).respond(answer)
        }
    }

    /// A small request (a header or two, a body under 100 bytes) that only stub `index` answers.
    public func request(_ index: Int) -> URLRequest {
        let url: String
        switch self {
        case .exactPaths: url = "https://api.example.com/items/\(index)"
        case .queryVariants: url = "https://api.example.com/items?size=20&page=\(index)"
        case .querySubsets: url = "https://api.example.com/items?size=20&page=\(index)&sort=new"
        case .templates: url = "https://api.example.com/v1/res\(index)/42"
        default: url = "https://api.example.com/items"
        }
        var request = URLRequest(url: Scenarios.fixedURL(url))
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        switch self {
        case .headers, .scannedHeaders: request.setValue("\(index)", forHTTPHeaderField: "X-Variant")
        case .jsonBodies:
            request.httpMethod = "POST"
            request.httpBody = Data(#"{"variant": \#(index), "name": "Ada", "tags": ["a", "b"]}"#.utf8)
        case .scannedBodies:
            request.httpMethod = "POST"
            request.httpBody = Data("variant \(index)".utf8)
        default: break
        }
        return request
    }
}
