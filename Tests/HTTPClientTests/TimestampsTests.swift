import Foundation
import HTTPClient
import Testing

/// Dates from servers and files are parsed strictly, by hand, and never crash the process.
@Suite("Timestamps")
struct TimestampsTests {
    static let november6 = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT

    @Test(
        "the three HTTP-date forms",
        arguments: [
            "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
        ])
    func httpDates(text: String) {
        #expect(Timestamps.httpDate(text, now: Date(timeIntervalSince1970: 1_800_000_000)) == Self.november6)
    }

    @Test(
        "impossible HTTP-dates are rejected",
        arguments: [
            "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT",
            "Sun, 06 Nov 0000 08:49:37 GMT", "Sun, +6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 06 Nov 1994 8:49:37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "",
        ])
    func impossibleHTTPDates(text: String) {
        #expect(Timestamps.httpDate(text) == nil)
    }

    @Test func theLatestHTTPDateParses() {
        #expect(Timestamps.httpDate("Fri, 31 Dec 9999 23:59:59 GMT") == Date(timeIntervalSince1970: 253_402_300_799))
    }

    @Test func rfc3339WithFractionsAndOffsets() {
        #expect(Timestamps.rfc3339("1994-11-06T08:49:37Z") == Self.november6)
        #expect(Timestamps.rfc3339("1994-11-06T09:49:37.500+01:00") == Self.november6.addingTimeInterval(0.5))
        #expect(Timestamps.rfc3339("1994-11-06T08:49:37.25z") == Self.november6.addingTimeInterval(0.25))
        #expect(Timestamps.rfc3339("1994-11-06 08:49:37Z") == nil)
        #expect(Timestamps.rfc3339("1994-13-06T08:49:37Z") == nil)
        #expect(Timestamps.rfc3339("1994-11-06T08:49:37+25:00") == nil)
    }

    @Test func aTimestampWithAHundredFractionDigitsDoesNotCrash() {
        // ICU's ISO 8601 parser, used here before, died of a floating-point exception on this
        // (found by the HAR fuzz target).
        let text = "2026-11-22T00:00:00.00" + String(repeating: "9", count: 100) + "0Z"
        #expect(Timestamps.rfc3339(text) == Date(timeIntervalSince1970: 1_795_305_600).addingTimeInterval(0.01))
    }
}

extension TimestampsTests {
    @Test(
        "RFC 3339 strings read back as the same date, before the Gregorian reform too",
        arguments: [
            "1013-11-22T00:00:00Z", "0001-01-01T00:00:00Z", "1582-10-10T12:00:00Z", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z",
            "2000-02-29T08:49:37Z", "9999-12-31T23:59:59Z",
        ])
    func rfc3339RoundTrips(text: String) throws {
        let date = try #require(Timestamps.rfc3339(text))
        #expect(Timestamps.rfc3339String(date) == text)
    }

    @Test func datesOutsideFourDigitYearsHaveNoRFC3339String() {
        #expect(Timestamps.rfc3339String(Date(timeIntervalSince1970: -70_000_000_000)) == nil)
        #expect(Timestamps.rfc3339String(Date(timeIntervalSince1970: .infinity)) == nil)
    }
}
