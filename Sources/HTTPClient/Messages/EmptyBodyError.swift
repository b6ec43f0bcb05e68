import Foundation

/// The underlying error of ``HTTPClientError/decodingFailed(type:response:underlying:)`` when
/// a value was expected and the body was empty.
public struct EmptyBodyError: Error, CustomStringConvertible {
    /// The error.
    init() {}
    /// Says that the body is empty.
    public var description: String { "the response body is empty" }
}
