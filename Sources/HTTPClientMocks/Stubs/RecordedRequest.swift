import Foundation
import HTTPClient

/// A request as the stub engine saw it: what matchers test and what verification returns.
///
/// The body is read once, from `httpBody` or, when Foundation moved it there, from
/// `httpBodyStream`, so matchers and assertions always see it.
public struct RecordedRequest: Sendable, CustomStringConvertible {
    /// The request with its body in `httpBody` (a stream body is drained into it).
    public let urlRequest: URLRequest
    public let method: HTTPMethod
    public let url: URL
    /// The percent-decoded path; `/` when the URL has none.
    public let path: String
    /// The query items in order (names and values percent-decoded).
    public let queryItems: [URLQueryItem]
    public let headers: HTTPHeaders
    /// The body; empty when the request has none.
    public let body: Data
    /// Values captured by a path template such as `/users/{id}` of the stub that answered.
    public internal(set) var pathParameters: [String: String] = [:]
    /// Arrival order in the registry that recorded it (0 for the first request).
    public internal(set) var sequenceNumber = 0

    /// Captures `request`. A request without a URL is recorded as `about:blank`.
    public init(_ request: URLRequest) {
        var request = request
        let body = request.httpBody ?? request.httpBodyStream.map(Self.drain) ?? Data()
        if request.httpBodyStream != nil {
            request.httpBodyStream = nil
            request.httpBody = body
        }
        let url = request.url ?? URL(fileURLWithPath: "/")
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        urlRequest = request
        method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        self.url = url
        let decodedPath = components?.path ?? url.path
        path = decodedPath.isEmpty ? "/" : decodedPath
        queryItems = components?.queryItems ?? []
        headers = HTTPHeaders(request.allHTTPHeaderFields ?? [:])
        self.body = body
    }

    private static func drain(_ stream: InputStream) -> Data {
        var data = Data()
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            data.append(buffer, count: count)
        }
        return data
    }

    // MARK: Reading the body

    /// The body as UTF-8 text, or `nil` if it is not valid UTF-8.
    public var text: String? { String(data: body, encoding: .utf8) }

    /// The body parsed as JSON, or `nil` if it is not JSON.
    public var json: JSONValue? { try? JSONValue(parsing: body) }

    /// Decodes the body as JSON into `type`.
    public func decodeBody<Value: Decodable>(as type: Value.Type, using decoder: JSONDecoder = JSONDecoder()) throws -> Value {
        try decoder.decode(Value.self, from: body)
    }

    /// The body parsed as `application/x-www-form-urlencoded` fields (`+` is a space). For a
    /// repeated field the last value wins; use ``formItems`` to see every value.
    public var formFields: [String: String] {
        Dictionary(formItems.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
    }

    /// The form fields in order, repeated names kept.
    public var formItems: [URLQueryItem] {
        guard let text else { return [] }
        return FormPair.pairs(in: text).filter { !$0.raw.isEmpty }.map { URLQueryItem(name: $0.name, value: $0.value) }
    }

    /// `GET https://example.com/users/1`.
    public var description: String { "\(method) \(url.absoluteString)" }
}
