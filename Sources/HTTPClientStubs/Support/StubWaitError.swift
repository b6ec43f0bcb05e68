import Foundation

/// A wait on a stub or a held response ran out of time: what was awaited, how many had happened,
/// and what did happen.
///
/// ```swift
/// try await stub.waitForRequests(2)
/// // Waited 10.0 seconds for 2 requests to method GET && path /feed; 1 happened.
/// // It answered:
/// //   GET https://api.example.com/feed?page=1
/// // Other requests to "loadsTheFeed()":
/// //   GET https://api.example.com/feeds: matched no stub
/// ```
///
/// Every wait (``Stub/waitForRequests(_:timeout:)``, ``Stub/waitForDeliveries(_:timeout:)``,
/// ``HeldResponse/waitUntilHolding(_:timeout:)``) returns as soon as what it waits for happens,
/// and gives up after 10 seconds by default: well under Swift Testing's shortest time limit (one
/// minute), so a test whose code never sends fails with this message, not with the limit's. The
/// time is the wall clock's, counted from the call. A heavily parallel run stretches it: under
/// ThreadSanitizer on two cores, with the whole suite running at once, the task that sends can
/// wait seconds for a thread. A wait that times out only there needs a longer `timeout:` (up to
/// the test's time limit), never a sleep before it.
public struct StubWaitError: Error, Equatable, CustomStringConvertible {
    /// What was awaited, such as `requests to method GET && path /feed`.
    package let waitingFor: String
    /// How many were awaited.
    package let expected: Int
    /// How many had happened when the time ran out.
    package let seen: Int
    /// The time limit.
    package let timeout: Duration
    /// What happened, one line each (URLs redacted): the requests that did come, and where.
    package let observed: [String]

    package init(waitingFor: String, expected: Int, seen: Int, timeout: Duration, observed: [String] = []) {
        self.waitingFor = waitingFor
        self.expected = expected
        self.seen = seen
        self.timeout = timeout
        self.observed = observed
    }

    public var description: String {
        let head = "Waited \(timeout) for \(expected) \(waitingFor); \(seen) happened."
        guard !observed.isEmpty else { return head + " Is the code under test sending it, to this registry's session?" }
        return ([head] + observed).joined(separator: "\n")
    }
}
