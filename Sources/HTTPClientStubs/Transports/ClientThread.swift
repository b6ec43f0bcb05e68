import Foundation

#if !canImport(FoundationNetworking)
import CoreFoundation
#endif

/// Where a URLProtocol calls its client. The one place that decides, per platform:
///
/// - **Darwin**: on the thread that called `startLoading`, through its run loop, in the mode
///   it was running (and the default mode). Apple's URLProtocol documentation asks for this:
///   the loading machinery expects its callbacks on that thread, and calls from elsewhere race
///   with `stopLoading`. Core Foundation's run-loop functions are used because they are
///   thread-safe, unlike `RunLoop`'s methods, which Apple says to call only on the loop's own
///   thread; `CFRunLoopPerformBlock` does not wake a sleeping loop, hence `CFRunLoopWakeUp`.
/// - **Linux**: where the work finishes. corelibs calls `startLoading` on its internal serial
///   queue, whose thread runs no run loop, so a block scheduled there would never run; its
///   client hops to the session's queue by itself and may be called from any thread.
struct ClientThread: @unchecked Sendable {
    // @unchecked: on Darwin it holds a CFRunLoop, used only through CFRunLoopPerformBlock and
    // CFRunLoopWakeUp, which are safe from any thread, and a Thread, only compared.

    /// The thread calls are made on, where there is one.
    let thread: Thread?

    #if canImport(FoundationNetworking)
    /// The strategy of this platform, captured inside `startLoading`.
    static func ofStartLoading() -> ClientThread {
        ClientThread(thread: nil)
    }

    /// Runs `call` at once, on the calling thread.
    func perform(_ call: @escaping @Sendable () -> Void) {
        call()
    }
    #else
    private let runLoop: CFRunLoop
    private let modes: CFArray

    /// The strategy of this platform, captured inside `startLoading`: this thread's run loop,
    /// in its current mode and the default mode.
    static func ofStartLoading() -> ClientThread {
        let runLoop: CFRunLoop = CFRunLoopGetCurrent()
        var modes: [String] = [CFRunLoopMode.defaultMode.rawValue as String]
        if let current = CFRunLoopCopyCurrentMode(runLoop), current != CFRunLoopMode.defaultMode {
            modes.append(current.rawValue as String)
        }
        return ClientThread(thread: Thread.current, runLoop: runLoop, modes: modes as CFArray)
    }

    /// Queues `call` on the captured run loop and wakes it. Calls are always queued, even from
    /// that thread, so they run in the order they were made.
    func perform(_ call: @escaping @Sendable () -> Void) {
        CFRunLoopPerformBlock(runLoop, modes, call)
        CFRunLoopWakeUp(runLoop)
    }
    #endif
}
