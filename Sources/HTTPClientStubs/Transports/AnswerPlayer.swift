import Dispatch
import Foundation
import HTTPClient

/// Walks an ``Answer`` for one transport, the one way every transport does: waits out its waits
/// (or skips them, for a transport that does not simulate time), hands every other step to the
/// transport's sink in order, and holds off while the sink's consumer has no room.
///
/// Each transport only adapts the steps: URLProtocol client calls, socket writes, a chunk
/// stream, a completion handler. Once the last step (`end` or `fail`) is handed over, the
/// answer counts as delivered (``Answer/noteDelivered()``): the moment `onDelivery` and
/// `waitForDeliveries` mean on every transport. A sink whose consumer takes the last step
/// later, or maybe not at all (a URLProtocol's client, on its own thread, unless the task was
/// cancelled meanwhile), answers it with `.stop` and counts the answer itself once taken.
package final class AnswerPlayer: Sendable {
    /// What the sink says after a step.
    package enum Flow: Sendable {
        /// Go on.
        case more
        /// The consumer has no room: wait for ``roomAvailable()``.
        case full
        /// The transport is gone: hand over nothing more.
        case stop
    }

    /// Runs work after a number of seconds (already clamped), on the transport's own clock.
    package typealias Scheduler = @Sendable (TimeInterval, @escaping @Sendable () -> Void) -> Void

    private struct State {
        var next = 0
        /// A turn is handing steps over; room arriving meanwhile is remembered in `roomCame`.
        var running = false
        var roomCame = false
        var waitingForRoom = false
        /// A wait is being waited out: only its timer goes on.
        var waiting = false
        var stopped = false
    }

    private let answer: Answer
    private let waitsOutTime: Bool
    private let scheduler: Scheduler
    private let sink: @Sendable (Answer.Step) -> Flow
    private let state = Locked(State())

    /// A player of `answer` for one transport.
    /// - Parameters:
    ///   - waitsOutTime: Whether waits are waited out (false: they are skipped, and the whole
    ///     answer plays in ``play()``, unless the sink's consumer is full).
    ///   - scheduler: Where waits are waited out; a global queue by default.
    ///   - sink: Handed each step but the waits, in order, on the thread that plays it.
    package init(
        _ answer: Answer, waitsOutTime: Bool, scheduler: @escaping Scheduler = AnswerPlayer.onGlobalQueue,
        sink: @escaping @Sendable (Answer.Step) -> Flow
    ) {
        self.answer = answer
        self.waitsOutTime = waitsOutTime
        self.scheduler = scheduler
        self.sink = sink
    }

    /// Waits out `seconds` on a global queue.
    package static let onGlobalQueue: Scheduler = { seconds, work in
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: work)
    }

    /// Starts playing, on the caller's thread, until a wait, a full consumer or the end.
    package func play() {
        turn(afterWait: false)
    }

    /// The sink's consumer has room again: playing goes on (at once if it was held off).
    package func roomAvailable() {
        let resumes = state.withLock { state -> Bool in
            guard state.waitingForRoom else {
                if state.running { state.roomCame = true }
                return false
            }
            state.waitingForRoom = false
            return true
        }
        if resumes { turn(afterWait: false) }
    }

    /// The transport ended (cancelled, the client went away): nothing more is handed over.
    package func stop() {
        state.withLock { $0.stopped = true }
    }

    /// Hands steps over until a wait, a full consumer, the end or a stop.
    private func turn(afterWait: Bool) {
        let starts = state.withLock { state -> Bool in
            if afterWait { state.waiting = false } else if state.waiting { return false }
            guard !state.running, !state.stopped else { return false }
            state.running = true
            return true
        }
        guard starts else { return }
        while true {
            let step = state.withLock { state -> Answer.Step? in
                state.roomCame = false
                guard !state.stopped, state.next < answer.steps.count else {
                    state.running = false
                    return nil
                }
                defer { state.next += 1 }
                return answer.steps[state.next]
            }
            guard let step else { return }
            if case .wait(let seconds) = step {
                guard waitsOutTime else { continue }
                state.withLock {
                    $0.waiting = true
                    $0.running = false
                }
                scheduler(seconds) { [self] in turn(afterWait: true) }
                return
            }
            let flow = sink(step)
            switch step {
            case .end, .fail:
                state.withLock {
                    $0.stopped = true
                    $0.running = false
                }
                if case .stop = flow { return }
                answer.noteDelivered()
                return
            default:
                break
            }
            switch flow {
            case .more:
                continue
            case .stop:
                state.withLock {
                    $0.stopped = true
                    $0.running = false
                }
                return
            case .full:
                // Held off, unless room came while this step was handed over.
                let holds = state.withLock { state -> Bool in
                    guard !state.roomCame else { return false }
                    state.waitingForRoom = true
                    state.running = false
                    return true
                }
                if holds { return }
            }
        }
    }
}
