import Foundation

/// A response body as it arrives: each element is one chunk, in order. A transfer cut short
/// throws its ``HTTPClientError``; a reader whose task is cancelled gets
/// ``HTTPClientError/cancelled``, never the end of the body. Letting the sequence go (or
/// cancelling the task that reads it) cancels the request. A slow reader holds at most about
/// ``ChunkStream/defaultWindow`` bytes: the session stops reading until it catches up.
///
/// Read it once: it is a stream, not a buffer.
public struct BodyChunks: AsyncSequence, Sendable {
    public typealias Element = Data
    public typealias Failure = HTTPClientError

    private let base: ChunkStream
    private let url: URL?

    /// Wraps a session's chunk stream (``URLSessionProtocol/chunks(for:)``).
    ///
    /// - Parameters:
    ///   - base: The session's stream.
    ///   - url: The URL errors name.
    init(_ base: ChunkStream, url: URL?) {
        self.base = base
        self.url = url
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), url: url)
    }

    /// Reads the next chunk; errors come out typed.
    public struct Iterator: AsyncIteratorProtocol {
        public typealias Failure = HTTPClientError

        var base: ChunkStream.Iterator
        let url: URL?

        public mutating func next() async throws(HTTPClientError) -> Data? {
            do {
                return try await base.next()
            } catch {
                throw HTTPClientError(transportError: error, url: url)
            }
        }
    }

    /// Reads the rest of the body into memory, at most `limit` bytes (what is left past the
    /// limit is not read: the request is cancelled when the sequence is let go).
    ///
    /// - Parameter limit: The most bytes kept.
    public func collect(upTo limit: Int) async throws(HTTPClientError) -> Data {
        var body = Data()
        for try await chunk in self {
            body.append(chunk.prefix(Swift.max(0, limit - body.count)))
            if body.count >= limit { break }
        }
        return body
    }
}
