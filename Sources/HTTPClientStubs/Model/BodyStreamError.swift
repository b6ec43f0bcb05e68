import Foundation
import HTTPClient

/// A request body stream that failed while it was read: the request fails with this instead of
/// being sent or matched with a truncated body.
public struct BodyStreamError: Error, CustomStringConvertible, LocalizedError, Equatable {
    /// `POST https://...`
    package let request: String
    /// How many bytes were read before the failure.
    package let bytesRead: Int
    /// What the stream said.
    package let reason: String

    public var description: String {
        "The body stream of \(request) failed after \(bytesRead) bytes (\(reason)); the request was not answered with a truncated body."
    }

    public var errorDescription: String? { description }
}
