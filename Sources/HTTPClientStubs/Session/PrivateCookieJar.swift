import Foundation
import HTTPClient

/// Whether a cookie storage only the engine has seen may hold cookies. A `MockURLSession` made
/// without a configuration keeps its cookies in a fresh jar that fills only through the
/// engine's `Set-Cookie` handling, or through the test once it has read the session's
/// `cookieStorage`; until either happens the jar is empty, and asking it for the cookies of a
/// URL (a sixth of a mocked round trip on Linux) is skipped.
package final class PrivateCookieJar: Sendable {
    private let mayHoldCookies = Locked(false)

    package init() {}

    var isKnownEmpty: Bool { !mayHoldCookies.current }

    /// From now on the jar is asked, for good.
    package func noteMayHoldCookies() {
        mayHoldCookies.withLock { $0 = true }
    }
}
