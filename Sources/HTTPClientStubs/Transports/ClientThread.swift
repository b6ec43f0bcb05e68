import Foundation
import HTTPClient

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
/// - **Linux**: on the session's work queue, the serial queue corelibs calls `startLoading`
///   on. Every client method reads the session's task registry (`URLSession.behaviour(for:)`),
///   which corelibs changes only on that queue and never locks: a call from any other thread
///   races with the tasks being added and removed, and crashes under load. The queue is not
///   public, but a task that is suspended and resumed calls `startLoading` on it again: calls
///   made elsewhere are queued and run from there (``drain(_:)``). A thread running no run
///   loop, the queue cannot take a block any other way.
final class ClientThread: @unchecked Sendable {
    // @unchecked: on Darwin it holds a CFRunLoop, used only through CFRunLoopPerformBlock and
    // CFRunLoopWakeUp, which are safe from any thread, and a Thread, only compared; on Linux a
    // weak reference to the task, used only through its thread-safe suspend and resume.

    /// The thread calls are made on, where there is one.
    let thread: Thread?

    #if canImport(FoundationNetworking)
    private struct Mailbox {
        var calls: [@Sendable () -> Void] = []
        /// A `startLoading` is running on the work queue and will make the calls queued.
        var draining = false
        /// A suspend-and-resume is on its way.
        var hopRequested = false
    }

    private let mailbox = Locked(Mailbox())
    private weak var task: URLSessionTask?

    /// Suspending and resuming wait for the work queue (`sync`): one queue of ours does it, so
    /// hundreds of protocols waiting at once do not take a thread each.
    private static let hops = DispatchQueue(label: "HTTPClientStubs.ClientThread.hops")

    private init(task: URLSessionTask?) {
        thread = nil
        self.task = task
    }

    /// The strategy of this platform, captured inside `startLoading` of `urlProtocol`.
    static func ofStartLoading(_ urlProtocol: URLProtocol) -> ClientThread {
        ClientThread(task: urlProtocol.task)
    }

    /// Runs `body`, then every call queued meanwhile or while the task was suspended: called
    /// from `startLoading`, so on the work queue.
    func drain(_ body: () -> Void = {}) {
        mailbox.withLock {
            $0.draining = true
            $0.hopRequested = false
        }
        body()
        while let calls = mailbox.withLock({ mailbox -> [@Sendable () -> Void]? in
            guard !mailbox.calls.isEmpty else {
                mailbox.draining = false
                return nil
            }
            defer { mailbox.calls = [] }
            return mailbox.calls
        }) {
            for call in calls { call() }
        }
    }

    /// Makes `call` on the work queue: at once when this runs inside ``drain(_:)``, otherwise
    /// after the task is suspended and resumed (which is how corelibs comes back to the
    /// protocol on its queue). Calls run in the order they were made.
    func perform(_ call: @escaping @Sendable () -> Void) {
        let hop = mailbox.withLock { mailbox -> Bool in
            mailbox.calls.append(call)
            guard !mailbox.draining, !mailbox.hopRequested else { return false }
            mailbox.hopRequested = true
            return true
        }
        guard hop else { return }
        let task = Unchecked(self.task)
        Self.hops.async { [mailbox] in
            // Drained meanwhile (the task was resumed by someone else): the calls were made, and
            // resuming a task whose protocol has finished would fail it a second time.
            guard mailbox.withLock({ $0.hopRequested && !$0.calls.isEmpty }) else { return }
            // A task cancelled or finished meanwhile ignores both.
            task.value?.suspend()
            task.value?.resume()
        }
    }

    /// Whether `stopLoading` ends the loading: corelibs also calls it when a task is
    /// suspended (then `startLoading` follows its resume), and a suspension is no end.
    func stopEndsLoading(of task: URLSessionTask?) -> Bool {
        guard let state = task?.state else { return true }
        return state == .canceling || state == .completed
    }

    /// Whether the protocol may end the loading itself (finish or fail). A task being cancelled
    /// is failed by corelibs: `cancel()` queues a block on the work queue that stops the
    /// protocol and fails the task with `URLError(.cancelled)`. A protocol that ends it first
    /// takes it out of the session's registry, and that block then traps (an answer with
    /// nothing to wait for, cancelled right after `resume()`, did so for a canned protocol too).
    func mayEndLoading(of task: URLSessionTask?) -> Bool {
        task?.state != .canceling
    }
    #else
    private let runLoop: CFRunLoop
    private let modes: CFArray

    private init(thread: Thread, runLoop: CFRunLoop, modes: CFArray) {
        self.thread = thread
        self.runLoop = runLoop
        self.modes = modes
    }

    /// The strategy of this platform, captured inside `startLoading`: this thread's run loop,
    /// in its current mode and the default mode.
    static func ofStartLoading(_ urlProtocol: URLProtocol) -> ClientThread {
        let runLoop: CFRunLoop = CFRunLoopGetCurrent()
        var modes: [String] = [CFRunLoopMode.defaultMode.rawValue as String]
        if let current = CFRunLoopCopyCurrentMode(runLoop), current != CFRunLoopMode.defaultMode {
            modes.append(current.rawValue as String)
        }
        return ClientThread(thread: Thread.current, runLoop: runLoop, modes: modes as CFArray)
    }

    /// Runs `body`: calls are queued on the run loop, never held here.
    func drain(_ body: () -> Void = {}) {
        body()
    }

    /// Queues `call` on the captured run loop and wakes it. Calls are always queued, even from
    /// that thread, so they run in the order they were made.
    func perform(_ call: @escaping @Sendable () -> Void) {
        CFRunLoopPerformBlock(runLoop, modes, call)
        CFRunLoopWakeUp(runLoop)
    }

    /// `stopLoading` always ends the loading.
    func stopEndsLoading(of task: URLSessionTask?) -> Bool {
        true
    }

    /// The protocol always ends the loading itself; a cancelled task ignores it.
    func mayEndLoading(of task: URLSessionTask?) -> Bool {
        true
    }
    #endif
}
