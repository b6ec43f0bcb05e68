import Foundation

extension HTTPClient {
    /// An HTTP response: status, headers, body and the URL it came from.
    public struct Response: Sendable, Hashable {
        /// The HTTP status code, such as 200 or 404.
        public var statusCode: Int
        /// The response headers; look them up case-insensitively with `headers["content-type"]`.
        public var headers: HTTPHeaders
        /// The body; empty (never `nil`) when the server sent none.
        public var body: Data
        /// The URL of the response (after redirects), or of the request when the response had none.
        public var url: URL?

        /// A response with these parts, for tests and for transports that build one by hand.
        public init(statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data(), url: URL? = nil) {
            self.statusCode = statusCode
            self.headers = headers
            self.body = body
            self.url = url
        }

        /// Reads status, headers and URL from a Foundation response.
        public init(_ response: HTTPURLResponse, body: Data?) {
            var fields: [(name: String, value: String)] = []
            let all = response.allHeaderFields
            fields.reserveCapacity(all.count)
            for (key, value) in all {
                // Direct casts: string interpolation of AnyHashable/Any goes through dynamic
                // `description` lookups, a measurable part of a loopback request.
                let name = (key.base as? String) ?? String(describing: key.base)
                fields.append((name, (value as? String) ?? String(describing: value)))
            }
            // Sorted so iteration order does not depend on dictionary hashing.
            fields.sort { $0.name < $1.name }
            let headers = HTTPHeaders(fields.map { HTTPHeaders.Field(name: $0.name, value: $0.value) })
            self.init(statusCode: response.statusCode, headers: headers, body: body ?? Data(), url: response.url)
        }

        /// Whether the status is 2xx.
        public var isSuccessful: Bool { (200..<300).contains(statusCode) }

        /// The body decoded as UTF-8, or `nil` if it is not valid UTF-8.
        public var text: String? { String(data: body, encoding: .utf8) }

        /// Decodes the body as JSON.
        ///
        /// - Throws: ``HTTPClientError/decodingFailed(type:response:underlying:)``, also when
        ///   the body is empty (which `JSONDecoder` reports obscurely).
        public func decode<Value: Decodable & Sendable>(
            _ type: Value.Type = Value.self, using decoder: JSONDecoder = JSONDecoder()
        ) throws(HTTPClientError) -> Value {
            guard !body.isEmpty else {
                throw .decodingFailed(type: String(describing: Value.self), response: self, underlying: EmptyBodyError())
            }
            do {
                return try decoder.decode(Value.self, from: body)
            } catch {
                throw .decodingFailed(type: String(describing: Value.self), response: self, underlying: error)
            }
        }
    }

    /// What a ``Response`` must satisfy to count as a success; anything else fails with
    /// ``HTTPClientError/unacceptableStatus(_:)`` (which keeps the response, body included).
    public struct Validation: Sendable {
        private let accepts: @Sendable (Response) -> Bool

        /// A validation from a predicate on the response.
        public init(_ accepts: @escaping @Sendable (Response) -> Bool) {
            self.accepts = accepts
        }

        /// Whether `response` passes.
        public func accepts(_ response: Response) -> Bool {
            accepts(response)
        }

        /// 2xx passes: the default.
        public static let successfulStatusCodes = Validation { (200..<300).contains($0.statusCode) }

        /// Statuses in `codes` pass: `.statusCodes(200..<400)`.
        public static func statusCodes(_ codes: Range<Int>) -> Validation {
            Validation { codes.contains($0.statusCode) }
        }

        /// Statuses in `codes` pass: `.statusCodes([200, 304])`.
        public static func statusCodes(_ codes: Set<Int>) -> Validation {
            Validation { codes.contains($0.statusCode) }
        }

        /// Every response passes; the caller inspects `statusCode` itself.
        public static let acceptAll = Validation { _ in true }
    }
}

/// The underlying error of ``HTTPClientError/decodingFailed(type:response:underlying:)`` when
/// a value was expected and the body was empty.
public struct EmptyBodyError: Error, CustomStringConvertible {
    /// The error.
    public init() {}
    public var description: String { "the response body is empty" }
}
