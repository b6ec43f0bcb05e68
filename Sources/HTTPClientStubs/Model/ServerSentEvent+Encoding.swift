import Foundation
import HTTPClient

extension ServerSentEvent {
    /// The event as a server writes it; `id` and `retry` only when they changed since `previous`.
    func encoded(after previous: ServerSentEvent?) -> String {
        var text = ""
        if type != "message" { text += "event: \(type)\n" }
        if lastEventID != (previous?.lastEventID ?? "") { text += "id: \(lastEventID)\n" }
        if let retry, retry != previous?.retry { text += "retry: \(retry)\n" }
        for line in data.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            text += "data: \(line)\n"
        }
        return text + "\n"
    }
}
