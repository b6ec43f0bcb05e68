import Foundation

/// A value guarded by a lock: the one way mutable state is shared across threads in this package.
///
/// One allocation holds both the value and the lock (the platform's `LockPrimitive`, see
/// Platform.swift): `NSLock` costs several allocations on Linux, and the mocked round trip
/// creates a box per request. `package` so that `HTTPClientStubs` uses the same box;
/// it is not part of the public API.
///
/// `@inlinable` so that each use is specialised in the module that uses it: otherwise every
/// call looks up the generic metadata of `Storage` at run time.
/// `Value: Sendable`, because a snapshot (``current``) or a value taken out of ``withLock(_:)``
/// leaves the lock and travels to other threads.
/// `package`: every module of the package guards its state with it; no API of the client.
/// `@usableFromInline` too: without it, Swift 6.3 does not specialise a `package` type's
/// `@inlinable` members in the other modules, and every `withLock` there ran the generic
/// entry point (about 400 instructions a call on the mocked round trip, measured with callgrind).
// @unchecked: the compiler cannot see that the lock guards `storage`.
@usableFromInline package struct Locked<Value: Sendable>: @unchecked Sendable {
    @usableFromInline let storage: Storage

    /// Boxes `value` with its own lock.
    /// `package`: every module of the package creates its boxes.
    @inlinable
    package init(_ value: Value) {
        storage = Storage.make(value)
    }

    /// Runs `body` with exclusive access to the value. Never call back into user code from
    /// `body`: take what you need out, then call it after the lock is released.
    /// `package`: every module of the package changes its state this way.
    @inlinable @discardableResult
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, lock in
            Storage.lock(lock)
            defer { Storage.unlock(lock) }
            return try body(&value.pointee)
        }
    }

    /// A snapshot of the value.
    /// `package`: every module of the package reads its state this way.
    @inlinable
    package var current: Value {
        withLock { $0 }
    }

    @usableFromInline
    final class Storage: ManagedBuffer<Value, LockPrimitive> {
        @inlinable
        static func make(_ value: Value) -> Storage {
            let buffer = create(minimumCapacity: 1) { _ in value }
            let storage = unsafeDowncast(buffer, to: Storage.self)
            storage.withUnsafeMutablePointerToElements(PlatformLock.initialize)
            return storage
        }

        @inlinable
        static func lock(_ lock: UnsafeMutablePointer<LockPrimitive>) {
            PlatformLock.lock(lock)
        }

        @inlinable
        static func unlock(_ lock: UnsafeMutablePointer<LockPrimitive>) {
            PlatformLock.unlock(lock)
        }

        deinit {
            withUnsafeMutablePointerToElements(PlatformLock.destroy)
        }
    }
}
