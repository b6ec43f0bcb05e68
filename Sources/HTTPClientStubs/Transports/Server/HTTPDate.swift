import Foundation
import HTTPClient

/// The value of the `Date` header a ``StubServer`` puts on its answers: IMF-fixdate
/// (RFC 9110 section 5.6.7), `Sun, 06 Nov 1994 08:49:37 GMT`.
///
/// Formatted by hand from `gmtime_r` once a second and shared by every answer of that second:
/// a `DateFormatter` costs more per call than the rest of an answer's head.
enum HTTPDate {
    /// The last second formatted, and its text.
    private static let cache = Locked((second: time_t(-1), text: ""))

    /// The current time, formatted.
    static var now: String {
        let second = time(nil)
        if let text = cache.withLock({ $0.second == second ? $0.text : nil }) { return text }
        let text = format(second)
        cache.withLock { $0 = (second, text) }
        return text
    }

    /// `seconds` since 1970 as IMF-fixdate, in GMT.
    /// - Parameter seconds: the time to format.
    static func format(_ seconds: time_t) -> String {
        var time = seconds
        var parts = tm()
        gmtime_r(&time, &parts)
        let day = days[Int(parts.tm_wday) % 7]
        let month = months[Int(parts.tm_mon) % 12]
        return "\(day), \(twoDigits(parts.tm_mday)) \(month) \(parts.tm_year + 1900) "
            + "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec)) GMT"
    }

    private static func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
