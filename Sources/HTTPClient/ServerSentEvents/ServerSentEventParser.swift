import Foundation

/// Turns the bytes of a `text/event-stream` body into ``ServerSentEvent``s, however the body is
/// split into chunks: what ``ServerSentEventStream`` runs (its documentation states the rules).
///
/// Internal: users (and the fuzz target) parse with `serverSentEvents()` on any sequence of chunks.
struct ServerSentEventParser: Sendable {
    /// The longest line, and the most data one event collects, in bytes.
    let maximumEventSize: Int

    private var line: [UInt8] = []
    private var data: [UInt8] = []
    private var hasData = false
    private var eventType: String?
    private var lastEventID = ""
    private var retry: Int?
    /// A CR ended the last line: an LF right after it belongs to that line ending.
    private var afterCarriageReturn = false
    /// How many bytes of a leading byte order mark were seen; `nil` once the stream has started.
    private var byteOrderMarkSeen: Int? = 0
    private var eventSize = 0

    /// - Parameter maximumEventSize: The longest line and the most data one event may collect;
    ///   8 MiB by default.
    init(maximumEventSize: Int = 8 << 20) {
        self.maximumEventSize = max(1, maximumEventSize)
    }

    /// Reads the next piece of the stream and returns the events it completes, in order.
    mutating func parse(_ chunk: some Sequence<UInt8>) throws(ServerSentEventError) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in chunk {
            if let seen = byteOrderMarkSeen {
                let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
                if byte == mark[seen] {
                    byteOrderMarkSeen = seen + 1 == mark.count ? nil : seen + 1
                    continue
                }
                // Not a mark after all: what was held back is ordinary text.
                byteOrderMarkSeen = nil
                line.append(contentsOf: mark[..<seen])
            }
            switch byte {
            case 0x0A where afterCarriageReturn:
                afterCarriageReturn = false
            case 0x0A, 0x0D:
                afterCarriageReturn = byte == 0x0D
                if let event = try endLine() { events.append(event) }
            default:
                afterCarriageReturn = false
                line.append(byte)
                guard line.count <= maximumEventSize else {
                    throw ServerSentEventError(kind: .lineTooLong, limit: maximumEventSize)
                }
            }
        }
        return events
    }

    /// Processes one complete line; returns the event a blank line dispatches.
    private mutating func endLine() throws(ServerSentEventError) -> ServerSentEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty { return dispatch() }
        if line[0] == UInt8(ascii: ":") { return nil }
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = line[..<(colon ?? line.endIndex)]
        var valueStart = colon.map { line.index(after: $0) } ?? line.endIndex
        if valueStart < line.endIndex, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let value = line[valueStart...]
        switch String(decoding: name, as: UTF8.self) {
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
        case "data":
            eventSize += value.count + 1
            guard eventSize <= maximumEventSize else {
                throw ServerSentEventError(kind: .eventTooLarge, limit: maximumEventSize)
            }
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
        case "id" where !value.contains(0):
            lastEventID = String(decoding: value, as: UTF8.self)
        case "retry" where !value.isEmpty && value.allSatisfy({ (0x30...0x39).contains($0) }):
            // More digits than an Int holds is not a usable time: ignored, as a non-number is.
            if let milliseconds = Int(String(decoding: value, as: UTF8.self)) { retry = milliseconds }
        default:
            break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            eventType = nil
            eventSize = 0
        }
        guard hasData else { return nil }
        let type = eventType.flatMap { $0.isEmpty ? nil : $0 } ?? "message"
        return ServerSentEvent(type: type, data: String(decoding: data, as: UTF8.self), lastEventID: lastEventID, retry: retry)
    }
}
