import Foundation

/// One event of a `text/event-stream` response, as the WHATWG HTML standard's event-stream
/// parser dispatches it (§9.2, "Server-sent events").
///
/// ```swift
/// for try await event in try await client.stream(.get("https://api.example.com/feed")).serverSentEvents() {
///     if event.type == "token" { print(event.data, terminator: "") }
/// }
/// ```
public struct ServerSentEvent: Sendable, Hashable, CustomStringConvertible {
    /// The `event` field, or `"message"` when the event has none.
    public var type: String
    /// The `data` fields of the event, joined by line feeds.
    public var data: String
    /// The last event ID of the stream when this event was dispatched: the latest `id` field,
    /// here or in an earlier event (empty until the server sends one). A client reconnecting
    /// sends it back as `Last-Event-ID`.
    public var lastEventID: String
    /// The reconnection time the stream last asked for with a `retry` field, in milliseconds,
    /// here or in an earlier event; `nil` until it asks.
    public var retry: Int?

    /// An event with these fields.
    public init(type: String = "message", data: String, lastEventID: String = "", retry: Int? = nil) {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
        self.retry = retry
    }

    public var description: String {
        var fields = ["event: \(type)"]
        if !lastEventID.isEmpty { fields.append("id: \(lastEventID)") }
        if let retry { fields.append("retry: \(retry)") }
        fields.append("data: \(data.debugDescription)")
        return fields.joined(separator: ", ")
    }
}
