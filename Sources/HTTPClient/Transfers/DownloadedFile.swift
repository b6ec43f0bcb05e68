import Foundation

/// A response whose body was written to a file: what ``HTTPClient/download(_:to:progress:)``
/// returns.
public struct DownloadedFile: Sendable {
    /// The status, headers and URL; its `body` is empty (the body is in ``fileURL``).
    public let head: HTTPClient.Response<Data>
    /// Where the body is: the destination asked for, or a new file in the temporary directory
    /// that is the caller's to move or delete.
    public let fileURL: URL
}
