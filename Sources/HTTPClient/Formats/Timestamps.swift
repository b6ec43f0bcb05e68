import Foundation

// Written here, not taken from Foundation: `DateFormatter` and `ISO8601DateFormatter` parse through ICU (see below).

/// Dates written by servers and tools (`Retry-After`, `Date`, HAR timestamps), parsed by hand: strict, allocation-light, and never
/// through ICU, whose date parser a hostile value crashed (a floating-point exception inside
/// `SimpleDateFormat::subParse`, found by fuzzing HAR timestamps on Linux).
/// `package`: HAR import, cassettes and the stubs' cookies and cache (HTTPClientStubs) read
/// and write dates the way the client reads `Retry-After`.
package enum Timestamps {
    /// An HTTP-date (RFC 9110 §5.6.7): IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, or the
    /// obsolete RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and asctime `Sun Nov  6 08:49:37 1994`.
    /// `package`: the stubs' cookies and cache (HTTPClientStubs) read `Expires` and `Date` this way.
    package static func httpDate(_ text: String, now: Date = Date()) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        switch parts.count {
        case 6 where parts[0].hasSuffix(",") && parts[5] == "GMT":
            // IMF-fixdate.
            guard shortDays.contains(String(parts[0].dropLast())), parts[1].count == 2, parts[3].count == 4,
                let day = number(parts[1]), let month = month(parts[2]), let year = number(parts[3])
            else { return nil }
            return date(year: year, month: month, day: day, time: parts[4])
        case 4 where parts[0].hasSuffix(",") && parts[3] == "GMT":
            // RFC 850: a two-digit year more than 50 years ahead is in the past century.
            let dayMonthYear = parts[1].split(separator: "-", omittingEmptySubsequences: false)
            guard longDays.contains(String(parts[0].dropLast())), dayMonthYear.count == 3, dayMonthYear[0].count == 2,
                dayMonthYear[2].count == 2, let day = number(dayMonthYear[0]), let month = month(dayMonthYear[1]),
                let shortYear = number(dayMonthYear[2])
            else { return nil }
            let currentYear =
                Calendar(identifier: .gregorian).dateComponents(in: TimeZone(secondsFromGMT: 0) ?? .current, from: now).year ?? 2000
            var year = currentYear - currentYear % 100 + shortYear
            if year > currentYear + 50 { year -= 100 }
            return date(year: year, month: month, day: day, time: parts[2])
        case 5:
            // asctime.
            guard shortDays.contains(String(parts[0])), let month = month(parts[1]), parts[2].count <= 2, parts[4].count == 4,
                let day = number(parts[2]), let year = number(parts[4])
            else { return nil }
            return date(year: year, month: month, day: day, time: parts[3])
        default:
            return nil
        }
    }

    /// An RFC 3339 timestamp, as HAR files write them: `2026-11-22T08:49:37.123Z` or with an
    /// offset such as `+01:00`.
    /// `package`: cassettes and HAR import (HTTPClientStubs) read their timestamps this way.
    package static func rfc3339(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
            let year = number(bytes[0..<4]), let month = number(bytes[5..<7]), let day = number(bytes[8..<10])
        else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == UInt8(ascii: ".") {
            var end = index + 1
            while end < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end]) { end += 1 }
            guard end > index + 1, let digits = Double("0" + String(decoding: bytes[index..<end], as: UTF8.self)) else {
                return nil
            }
            fraction = digits
            index = end
        }
        var offset = 0
        switch bytes[index...].first {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == bytes.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == bytes.count, bytes[index + 3] == UInt8(ascii: ":"),
                let hours = number(bytes[(index + 1)..<(index + 3)]), let minutes = number(bytes[(index + 4)..<(index + 6)]),
                hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 60 + minutes) * 60 * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
        default:
            return nil
        }
        guard let date = date(year: year, month: month, day: day, time: Substring(String(decoding: bytes[11..<19], as: UTF8.self))) else {
            return nil
        }
        return date.addingTimeInterval(fraction - TimeInterval(offset))
    }

    /// `date` as RFC 3339 in UTC with whole seconds (`2026-11-22T08:49:37Z`), in the proleptic
    /// Gregorian calendar that ``rfc3339(_:)`` reads (Foundation's formatters switch to the
    /// Julian calendar before 1582, so a date they write may not read back the same); `nil`
    /// outside the years 1...9999.
    /// `package`: cassettes (HTTPClientStubs) write their timestamps this way.
    package static func rfc3339String(_ date: Date) -> String? {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, abs(seconds) < 1e13 else { return nil }
        let total = Int(seconds)
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondOfDay = total - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        guard (1...9999).contains(year) else { return nil }
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let paddedYear = String(repeating: "0", count: 4 - String(year).count) + String(year)
        return "\(paddedYear)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }

    // MARK: Pieces

    private static let shortDays: Set<String> = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays: Set<String> = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func month(_ name: Substring) -> Int? {
        months.firstIndex(of: String(name)).map { $0 + 1 }
    }

    /// Digits only, no sign: `Int("+5")` would accept what a date may not hold.
    private static func number(_ text: Substring) -> Int? {
        number(ArraySlice(text.utf8))
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    /// The date of a day and `HH:MM:SS` in UTC, or `nil` when any part is out of range (a
    /// leap second, `:60`, counts as the next second).
    private static func date(year: Int, month: Int, day: Int, time: Substring) -> Date? {
        let clock = Array(time.utf8)
        guard clock.count == 8, clock[2] == UInt8(ascii: ":"), clock[5] == UInt8(ascii: ":"),
            let hour = number(clock[0..<2]), let minute = number(clock[3..<5]), let second = number(clock[6..<8]),
            hour < 24, minute < 60, second <= 60, (1...9999).contains(year), (1...12).contains(month),
            (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (the inverse of ``daysFromCivil``).
    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (the civil-from-days inverse in
    /// Howard Hinnant's "chrono-compatible low-level date algorithms").
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
