import Foundation
import HTTPClient

/// The error a transport delivers for a request that matched no stub. Its description is the
/// full ``UnmatchedRequestReport``.
public struct UnmatchedRequestError: Error, CustomStringConvertible, LocalizedError {
    /// What was asked, and why each stub did not answer.
    public let report: UnmatchedRequestReport

    public var description: String { report.description }
    public var errorDescription: String? { report.description }
}
