import Foundation

extension HTTPClient {
    /// What a ``Response`` must satisfy to count as a success. A response the check returns
    /// `false` for fails with ``HTTPClientError/unacceptableStatus(_:)``; one it throws for fails
    /// with ``HTTPClientError/validationFailed(response:underlying:)``, which keeps what it threw
    /// (the app's own error type) beside the response. Both keep the response, body included.
    ///
    /// ```swift
    /// let client = HTTPClient(validation: HTTPClient.Validation { response in
    ///     if response.statusCode == 422 { throw try response.decode(APIProblem.self) }
    ///     return response.isSuccessful
    /// })
    /// ```
    public struct Validation: Sendable {
        private let check: @Sendable (Response<Data>) throws -> Bool

        /// A validation from a check on the response: `true` passes, `false` rejects it, and a
        /// thrown error rejects it with that error as the cause.
        ///
        /// - Parameter check: Called once per response (before its body is read, for streams,
        ///   downloads and uploads, whose responses it sees with an empty body).
        public init(_ check: @escaping @Sendable (Response<Data>) throws -> Bool) {
            self.check = check
        }

        /// The error `response` fails with, or `nil` when it passes.
        func rejection(of response: Response<Data>) -> Rejection? {
            do {
                return try check(response) ? nil : Rejection(cause: nil)
            } catch {
                return Rejection(cause: error)
            }
        }

        /// Why a response failed: its check returned `false` (no cause) or threw `cause`.
        struct Rejection {
            let cause: (any Error)?

            /// The error of `response` (whose body a stream may have read since it was checked).
            func error(for response: Response<Data>) -> HTTPClientError {
                cause.map { .validationFailed(response: response, underlying: $0) } ?? .unacceptableStatus(response)
            }
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
