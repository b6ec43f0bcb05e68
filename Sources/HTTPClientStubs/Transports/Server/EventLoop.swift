import Dispatch
import Foundation
import HTTPClient

/// What an event loop tells a descriptor's owner: it can be read, or written.
protocol ReadinessHandler: AnyObject {
    func readable()
    func writable()
}

/// One thread that owns a set of sockets: waits for them with a ``Poller``, runs their handlers,
/// the timers that are due and the work other threads hand it, in that order, forever.
///
/// Everything a socket's owner does runs on its loop's thread, so a connection's state needs no
/// lock; other threads reach it with ``execute(_:)``. The loops of every ``StubServer`` in the
/// process are the shared ``EventLoopGroup``: as many threads as cores, however many servers
/// and connections.
// @unchecked: `pending` and `sleeping` are behind `lock`; everything else is touched on the
// loop's thread only.
final class EventLoop: @unchecked Sendable {
    private let poller: Poller
    private var handlers: [ReadinessHandler?] = []
    private var interest: [(reading: Bool, writing: Bool)?] = []
    private var timers = TimerHeap()
    private let lock = NSLock()
    private var pending: [@Sendable () -> Void] = []
    private var sleeping = false
    private var thread: Thread?
    /// The loop's thread, for `inLoop`.
    private nonisolated(unsafe) var threadIdentity: UnsafeMutableRawPointer?

    init(name: String) throws(StubServerError) {
        poller = try Poller()
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.stackSize = 1 << 20
        self.thread = thread
        thread.start()
    }

    /// Whether the caller runs on this loop's thread.
    var inLoop: Bool { threadIdentity == Self.currentThreadIdentity }

    private static var currentThreadIdentity: UnsafeMutableRawPointer {
        Unmanaged.passUnretained(Thread.current).toOpaque()
    }

    // MARK: Work from other threads

    /// Runs `work` on the loop's thread, after what it is doing now; from any thread.
    func execute(_ work: @escaping @Sendable () -> Void) {
        let wakes = lock.withLock {
            pending.append(work)
            defer { sleeping = false }
            return sleeping
        }
        if wakes { poller.wake() }
    }

    // MARK: Timers (on the loop's thread)

    /// Runs `work` on the loop's thread at `deadline` (uptime nanoseconds), unless cancelled first.
    @discardableResult
    func schedule(at deadline: UInt64, _ work: @escaping () -> Void) -> LoopTimer {
        let timer = LoopTimer(deadline: deadline, work: work)
        timers.insert(timer)
        return timer
    }

    /// Runs `work` on the loop's thread after `seconds` (none, NaN or less: on the next turn).
    @discardableResult
    func schedule(after seconds: TimeInterval, _ work: @escaping () -> Void) -> LoopTimer {
        schedule(at: Self.deadline(after: seconds), work)
    }

    /// The uptime in nanoseconds `seconds` from now, clamped (NaN is now, no wait overflows).
    static func deadline(after seconds: TimeInterval) -> UInt64 {
        let now = DispatchTime.now().uptimeNanoseconds
        guard seconds > 0 else { return now }
        return now &+ UInt64(min(seconds, 1e9) * 1e9)
    }

    // MARK: Descriptors (on the loop's thread)

    /// Watches `descriptor` for what `handler` wants: reading, writing, both or neither.
    func watch(_ descriptor: Int32, by handler: ReadinessHandler, reading: Bool, writing: Bool) {
        let index = Int(descriptor)
        if index >= handlers.count {
            handlers += Array(repeating: nil, count: index + 1 - handlers.count)
            interest += Array(repeating: nil, count: index + 1 - interest.count)
        }
        handlers[index] = handler
        let was = interest[index]
        guard was.map({ $0.reading != reading || $0.writing != writing }) ?? true else { return }
        poller.watch(descriptor, reading: reading, writing: writing, was: was)
        interest[index] = (reading, writing)
    }

    /// Stops watching `descriptor`, before its owner closes it.
    func forget(_ descriptor: Int32) {
        let index = Int(descriptor)
        guard index < handlers.count, let was = interest[index] else { return }
        poller.forget(descriptor, was: was)
        handlers[index] = nil
        interest[index] = nil
    }

    // MARK: The loop

    private func run() {
        threadIdentity = Self.currentThreadIdentity
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            var milliseconds: Int32 = -1
            if let next = timers.nextDeadline() {
                milliseconds = next <= now ? 0 : Int32(clamping: (next - now + 999_999) / 1_000_000)
            }
            let hasWork = lock.withLock {
                sleeping = pending.isEmpty && milliseconds != 0
                return !pending.isEmpty
            }
            poller.wait(milliseconds: hasWork ? 0 : milliseconds) { ready in
                let index = Int(ready.descriptor)
                guard index < handlers.count, let handler = handlers[index] else { return }
                if ready.readable { handler.readable() }
                // The read may have closed it.
                if ready.writable, index < handlers.count, let handler = handlers[index] { handler.writable() }
            }
            lock.withLock { sleeping = false }
            // One timer taken at a time: running one may schedule another.
            let turn = DispatchTime.now().uptimeNanoseconds
            while let due = timers.popDue(at: turn) { due() }
            let work = lock.withLock {
                defer { pending.removeAll(keepingCapacity: true) }
                return pending
            }
            for item in work { item() }
        }
    }
}

/// A timer of an ``EventLoop``: cancelled by its owner, or run once at its deadline.
final class LoopTimer {
    let deadline: UInt64
    fileprivate var work: (() -> Void)?

    fileprivate init(deadline: UInt64, work: @escaping () -> Void) {
        self.deadline = deadline
        self.work = work
    }

    /// Keeps it from running; on the loop's thread.
    func cancel() { work = nil }
}

/// The loop's timers by deadline: a binary heap, where a cancelled timer stays until its time
/// comes and is then dropped (cancelling costs nothing).
private struct TimerHeap {
    private var heap: [LoopTimer] = []

    /// The earliest deadline of a timer not cancelled (cancelled ones before it are dropped).
    mutating func nextDeadline() -> UInt64? {
        while let first = heap.first, first.work == nil { removeFirst() }
        return heap.first?.deadline
    }

    mutating func insert(_ timer: LoopTimer) {
        heap.append(timer)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// The work of the earliest timer whose deadline has come (cancelled ones are dropped), taken
    /// from the heap; nil when none is due.
    mutating func popDue(at now: UInt64) -> (() -> Void)? {
        while let first = heap.first, first.deadline <= now {
            removeFirst()
            if let work = first.work {
                first.work = nil
                return work
            }
        }
        return nil
    }

    private mutating func removeFirst() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

/// The event loops every ``StubServer`` of the process shares: one per core (at least one),
/// made on first use. Connections are spread over them in turn.
final class EventLoopGroup: Sendable {
    let loops: [EventLoop]
    private let next = Locked(0)

    /// The process's loops; `nil` when none could be made (no descriptor left), with the reason.
    static let shared: Result<EventLoopGroup, StubServerError> = {
        do throws(StubServerError) {
            let count = max(1, ProcessInfo.processInfo.activeProcessorCount)
            var loops: [EventLoop] = []
            for index in 0..<count { loops.append(try EventLoop(name: "StubServer loop \(index)")) }
            return .success(EventLoopGroup(loops: loops))
        } catch {
            return .failure(error)
        }
    }()

    private init(loops: [EventLoop]) {
        self.loops = loops
    }

    /// The loop the next connection goes to.
    func nextLoop() -> EventLoop {
        loops[
            next.withLock { next in
                defer { next = (next + 1) % loops.count }
                return next
            }]
    }
}
