import Foundation

/// A value guarded by a lock: the one way mutable state is shared across threads in this package.
///
/// `package` so that `HTTPClientMocks` uses the same box; it is not part of the public API.
package final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value. Never call back into user code from
    /// `body`: take what you need out, then call it after the lock is released.
    @discardableResult
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A snapshot of the value.
    package var current: Value {
        withLock { $0 }
    }
}
