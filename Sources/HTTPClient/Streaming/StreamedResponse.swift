import Foundation

/// A response whose headers have arrived and whose body is read as it comes: what
/// ``HTTPClient/stream(_:)`` returns.
///
/// ```swift
/// let feed = try await client.stream(.get("events"))
/// for try await event in feed.chunks.serverSentEvents() {
///     print(event.type, event.data)
/// }
/// ```
public struct StreamedResponse: Sendable {
    /// The status, headers and URL; its `body` is empty (the body is ``chunks``).
    public let head: HTTPClient.Response<Data>
    /// The body, chunk by chunk as the session delivers it.
    public let chunks: BodyChunks
}
