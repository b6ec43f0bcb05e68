import Foundation

/// A wait on a stub or a held response ran out of time: what was awaited, how many had happened.
///
/// ```swift
/// try await stub.waitForRequests(2)   // "Waited 60.0 seconds for 2 requests to ...; 1 happened."
/// ```
public struct StubWaitError: Error, Equatable, CustomStringConvertible {
    /// What was awaited, such as `requests to method GET && path /feed`.
    package let waitingFor: String
    /// How many were awaited.
    package let expected: Int
    /// How many had happened when the time ran out.
    package let seen: Int
    /// The time limit.
    package let timeout: Duration

    public var description: String {
        "Waited \(timeout) for \(expected) \(waitingFor); \(seen) happened. "
            + "Is the code under test sending it, to this registry's session?"
    }
}
