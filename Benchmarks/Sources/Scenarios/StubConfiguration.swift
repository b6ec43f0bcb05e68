import Foundation
import HTTPClient
import HTTPClientStubs

/// The registries of the per-configuration table (11): `count` stubs that differ in one way,
/// with the requests that the first and the last registered answer.
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

    /// Whether the registry finds the stub without testing the others.
    public var isIndexed: Bool { ![.jsonBodies, .scannedHeaders, .scannedBodies].contains(self) }

    /// A registry of `count` stubs, and requests for the first and the last registered.
    public func registry(stubs count: Int) -> (registry: StubRegistry, first: URLRequest, last: URLRequest) {
        let stubs = StubRegistry("\(self)", reporting: .disabled)
        for index in 0..<count { register(index, in: stubs) }
        return (stubs, request(0), request(count - 1))
    }

    private func register(_ index: Int, in stubs: StubRegistry) {
        let answer = MockResponse.status(200, body: Data("ok".utf8))
        switch self {
        case .exactPaths: stubs.stub(.get, "/items/\(index)").respond(answer)
        case .queryVariants: stubs.stub(.get, "https://api.example.com/items?page=\(index)&size=20").respond(answer)
        case .querySubsets: stubs.stub(.get, "/items").matching(.query(["page": "\(index)"])).respond(answer)
        case .templates: stubs.stub(.get, "/v1/res\(index)/{id}").respond(answer)
        case .headers: stubs.stub(.get, "/items").matching(.header("X-Variant", "\(index)")).respond(answer)
        case .jsonBodies:
            stubs.stub(.post, "/items").matching(.jsonBody(containing: .object(["variant": .integer(Int64(index))]))).respond(answer)
        case .scannedHeaders:
            stubs.stub(.get, "/items").matching(.header("X-Variant", "\(index)") || .header("X-Other", "\(index)")).respond(answer)
        case .scannedBodies: stubs.stub(.post, "/items").matching(.body("variant \(index)")).respond(answer)
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
