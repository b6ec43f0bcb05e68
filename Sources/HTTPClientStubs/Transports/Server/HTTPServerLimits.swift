import Foundation

/// How much of a request a ``StubServer`` reads before it answers with an error and closes the
/// connection. The defaults are far above what a test sends and far below what exhausts memory.
package struct HTTPServerLimits: Sendable, Hashable {
    /// The most bytes of a request head (request line, header lines, the blank line) and, on
    /// their own, of a chunked body's trailers; more is answered 431.
    package var maximumHeadBytes: Int
    /// The most header lines in a head (and trailer lines after a chunked body); more is answered 431.
    package var maximumHeaderCount: Int
    /// The most bytes of a decoded body; more (announced or sent) is answered 413.
    package var maximumBodyBytes: Int

    /// Limits with these values; the defaults are 64 KiB of head, 256 header lines and 64 MiB of body.
    /// - Parameters:
    ///   - maximumHeadBytes: the most bytes of a head.
    ///   - maximumHeaderCount: the most header lines.
    ///   - maximumBodyBytes: the most bytes of a decoded body.
    package init(maximumHeadBytes: Int = 64 * 1024, maximumHeaderCount: Int = 256, maximumBodyBytes: Int = 64 * 1024 * 1024) {
        self.maximumHeadBytes = maximumHeadBytes
        self.maximumHeaderCount = maximumHeaderCount
        self.maximumBodyBytes = maximumBodyBytes
    }
}
