import Foundation

/// The events of a `text/event-stream` body, parsed from its chunks as they arrive, however the
/// body is split: a line (or a UTF-8 character, or a CR LF pair) may end in one chunk and go on
/// in the next.
///
/// Follows the WHATWG HTML standard's parsing rules (§9.2.6): a leading byte order mark is
/// skipped; lines end with CR LF, LF or CR; lines starting with `:` are comments; `event`,
/// `data`, `id` and `retry` fields are read, others ignored; a blank line dispatches the event,
/// unless it has no data; an `id` containing NUL is ignored, and so is a `retry` that is not
/// all ASCII digits. At the end of the stream an event without its blank line is discarded.
///
/// The stream is hostile until checked: a line or an event's data longer than the
/// `maximumEventSize` given to `serverSentEvents(maximumEventSize:)`
/// throws ``ServerSentEventError`` instead of growing memory without bound, and a `retry` too
/// large for `Int` is ignored.
///
/// ```swift
/// let (chunks, _) = try await session.chunks(for: request)
/// for try await event in chunks.serverSentEvents() { ... }
/// ```
public struct ServerSentEventStream<Base: AsyncSequence>: AsyncSequence where Base.Element == Data {
    public typealias Element = ServerSentEvent

    private let base: Base
    private let maximumEventSize: Int

    init(_ base: Base, maximumEventSize: Int) {
        self.base = base
        self.maximumEventSize = maximumEventSize
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), parser: ServerSentEventParser(maximumEventSize: maximumEventSize))
    }

    /// Reads chunks until they complete an event.
    public struct Iterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var parser: ServerSentEventParser
        var ready: [ServerSentEvent] = []

        public mutating func next() async throws -> ServerSentEvent? {
            while ready.isEmpty {
                guard let chunk = try await base.next() else { return nil }
                ready = try parser.parse(chunk).reversed()
            }
            return ready.popLast()
        }
    }
}

extension ServerSentEventStream: Sendable where Base: Sendable {}

extension AsyncSequence where Element == Data {
    /// The server-sent events of this body.
    ///
    /// - Parameter maximumEventSize: The longest line and the most data one event may collect,
    ///   in bytes; past it the stream throws ``ServerSentEventError``.
    public func serverSentEvents(maximumEventSize: Int = 8 << 20) -> ServerSentEventStream<Self> {
        ServerSentEventStream(self, maximumEventSize: maximumEventSize)
    }
}
