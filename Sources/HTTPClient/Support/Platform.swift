import Foundation

// Every difference between Apple's platforms and Linux (swift-corelibs-foundation) that the
// package's code has to spell differently lives in this file, except one behaviour that belongs
// to the URLProtocol transport (HTTPClientStubs' ClientThread.swift) and the socket calls of
// StubServer (HTTPClientStubs' Server/Socket.swift). README's Platforms section
// lists each branch and what differs; `../shared/darwin/typecheck` type-checks the Apple side.

// corelibs keeps URLSession, URLRequest and URLResponse in a module of their own. Re-exporting it
// here means every file of this module, and every client of it, sees them with a plain
// `import Foundation` + `import HTTPClient`. Apple's Foundation has no such module.
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif

// Foundation re-exports the C library on both sides (Darwin, Glibc); it is imported by name only
// to reach `os_unfair_lock` and to call write(2) by its module-qualified name.
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The lock under ``Locked``: `os_unfair_lock` on Apple platforms (no allocation, no syscall when
/// uncontended), `pthread_mutex_t` elsewhere.
#if canImport(Darwin)
@usableFromInline typealias LockPrimitive = os_unfair_lock
#else
@usableFromInline typealias LockPrimitive = pthread_mutex_t
#endif

/// The platform's lock calls, for ``Locked`` (inlined where it is used).
@usableFromInline
enum PlatformLock {
    @inlinable
    static func initialize(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
        lock.initialize(to: os_unfair_lock())
        #else
        lock.initialize(to: pthread_mutex_t())
        pthread_mutex_init(lock, nil)
        #endif
    }

    @inlinable
    static func lock(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
        os_unfair_lock_lock(lock)
        #else
        pthread_mutex_lock(lock)
        #endif
    }

    @inlinable
    static func unlock(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
        os_unfair_lock_unlock(lock)
        #else
        pthread_mutex_unlock(lock)
        #endif
    }

    @inlinable
    static func destroy(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if !canImport(Darwin)
        pthread_mutex_destroy(lock)
        #endif
        _ = lock.deinitialize(count: 1)
    }
}

/// write(2), named apart from the many `write` methods in scope (the C function is reachable
/// only by its module's name, which differs per platform).
func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    Darwin.write(descriptor, buffer, count)
    #elseif canImport(Glibc)
    Glibc.write(descriptor, buffer, count)
    #else
    Musl.write(descriptor, buffer, count)
    #endif
}

/// Whether a data task can be paused mid-body by `suspend()` and continued by `resume()`, as the
/// companion session does to hold a slow stream reader's memory to one window.
///
/// Apple documents it (a suspended task makes no network traffic; `resume()` continues it).
/// corelibs takes a suspended task's handle out of curl's multi handle and, on resume, adds it
/// back, which starts the transfer over: measured here, a 1 GiB body read slowly arrived 40
/// times over. So on Linux a task is never suspended, and a real `URLSession` stream buffers
/// what the network delivers faster than it is read (see BENCHMARKS.md).
#if canImport(FoundationNetworking)
let suspendingADataTaskPausesIt = false
#else
let suspendingADataTaskPausesIt = true
#endif

/// Whether a URLProtocol may give any task its body in several `urlProtocol(_:didLoad:)` calls.
///
/// Apple's loading machinery appends each piece, whatever the task. corelibs' completion-handler
/// tasks (and async `data(for:)`) keep only the last piece, and a protocol cannot tell them from
/// delegate tasks: there, only a task of `chunks(for:)` (``URLSessionTask/readsBodyInChunks``)
/// gets the pieces, and any other the whole body in one call.
#if canImport(FoundationNetworking)
package let urlProtocolClientsKeepEveryPiece = false
#else
package let urlProtocolClientsKeepEveryPiece = true
#endif
