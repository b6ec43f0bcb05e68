import Foundation

extension HTTPClient {
    /// What a ``Response`` must satisfy to count as a success; anything else fails with
    /// ``HTTPClientError/unacceptableStatus(_:)`` (which keeps the response, body included).
    public struct Validation: Sendable {
        private let accepts: @Sendable (Response<Data>) -> Bool

        /// A validation from a predicate on the response.
        public init(_ accepts: @escaping @Sendable (Response<Data>) -> Bool) {
            self.accepts = accepts
        }

        /// Whether `response` passes.
        func accepts(_ response: Response<Data>) -> Bool {
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
