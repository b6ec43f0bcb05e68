/// Why a `text/event-stream` body could not be read: it broke a limit of
/// ``ServerSentEventStream`` (a line, or one event's data, larger than its `maximumEventSize`).
public struct ServerSentEventError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which limit the stream broke.
    public enum Kind: Sendable, Hashable {
        /// A line went on past the limit without a line break.
        case lineTooLong
        /// One event's `data` fields together went past the limit.
        case eventTooLarge
    }

    /// Which limit the stream broke.
    public let kind: Kind
    /// The limit, in bytes.
    public let limit: Int

    public var description: String {
        switch kind {
        case .lineTooLong:
            "A line of the event stream is longer than \(limit) bytes; raise the maximumEventSize given to serverSentEvents(maximumEventSize:) if that is expected."
        case .eventTooLarge:
            "An event of the event stream has more than \(limit) bytes of data; raise the maximumEventSize given to serverSentEvents(maximumEventSize:) if that is expected."
        }
    }
}
