import Foundation
import HTTPClient

/// How many times a stub (or a kind of request) is expected to be requested.
public enum CallCount: Sendable, Hashable, CustomStringConvertible {
    /// This many times: `.exactly(1)`, `.exactly(0)` for never.
    case exactly(Int)
    /// This many times or more.
    case atLeast(Int)
    /// This many times or fewer.
    case atMost(Int)

    /// Whether `count` calls satisfy the expectation.
    package func accepts(_ count: Int) -> Bool {
        switch self {
        case .exactly(let expected): count == expected
        case .atLeast(let minimum): count >= minimum
        case .atMost(let maximum): count <= maximum
        }
    }

    public var description: String {
        switch self {
        case .exactly(let n): "exactly \(times(n))"
        case .atLeast(let n): "at least \(times(n))"
        case .atMost(let n): "at most \(times(n))"
        }
    }
}
