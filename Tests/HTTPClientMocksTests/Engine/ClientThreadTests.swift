import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@testable import HTTPClientStubs

/// The URLProtocol transport calls its client where `ClientThread` says: on Darwin the thread
/// that called `startLoading` (through its run loop), on Linux the session's work queue (from
/// inside `startLoading`).
@Suite("Client thread")
struct ClientThreadTests {
    #if canImport(FoundationNetworking)
    @Test func onLinuxCallsMadeWhileStartLoadingRunsAreMadeBeforeItReturnsInOrder() {
        let clientThread = ClientThread.ofStartLoading(Self.protocolWithoutTask())
        let calls = Locked<[Int]>([])
        clientThread.drain {
            clientThread.perform { calls.withLock { $0.append(1) } }
            clientThread.perform {
                calls.withLock { $0.append(2) }
                clientThread.perform { calls.withLock { $0.append(3) } }
            }
        }
        #expect(calls.current == [1, 2, 3])
    }

    @Test func onLinuxACallMadeElsewhereWaitsForTheNextStartLoading() {
        let clientThread = ClientThread.ofStartLoading(Self.protocolWithoutTask())
        let ran = Locked(false)
        clientThread.perform { ran.withLock { $0 = true } }
        #expect(!ran.current)
        clientThread.drain()
        #expect(ran.current)
    }

    @Test func onLinuxStoppingASuspendedTaskIsNoEnd() async throws {
        let session = URLSession(configuration: .ephemeral)
        let task = session.dataTask(with: testURL("http://127.0.0.1:9/never"))
        let clientThread = ClientThread.ofStartLoading(Self.protocolWithoutTask())
        #expect(!clientThread.stopEndsLoading(of: task))
        task.cancel()
        #expect(clientThread.stopEndsLoading(of: task))
    }

    private static func protocolWithoutTask() -> URLProtocol {
        URLProtocol(request: URLRequest(url: testURL("https://h/")), cachedResponse: nil, client: nil)
    }
    #else
    @Test func onDarwinCallsRunOnTheStartLoadingThreadInTheOrderTheyWereMade() async {
        let loop = RunLoopThread()
        let clientThread = await loop.capture()
        let calls = Locked<[(index: Int, onCapturedThread: Bool)]>([])

        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                for index in 0..<20 {
                    clientThread.perform {
                        calls.withLock { $0.append((index, Thread.current == clientThread.thread)) }
                        if index == 19 { finished.resume() }
                    }
                }
            }
        }
        loop.stop()

        #expect(calls.current.map { $0.index } == Array(0..<20))
        #expect(calls.current.allSatisfy { $0.onCapturedThread })
    }
    #endif
}

#if !canImport(FoundationNetworking)
/// A thread that runs a run loop until stopped, as Darwin's URL loading thread does.
private final class RunLoopThread: @unchecked Sendable {
    // @unchecked: `stopped` is set and read only on the thread itself (see `stop`).
    private var stopped = false
    private let clientThread = Locked<ClientThread?>(nil)

    func capture() async -> ClientThread {
        await withCheckedContinuation { continuation in
            Thread { [self] in
                // A far-off timer keeps the run loop from returning at once for want of sources.
                let keepAlive = Timer(timeInterval: 3600, repeats: true) { _ in }
                RunLoop.current.add(keepAlive, forMode: .default)
                let captured = ClientThread.ofStartLoading(
                    URLProtocol(request: URLRequest(url: testURL("https://h/")), cachedResponse: nil, client: nil))
                clientThread.withLock { $0 = captured }
                continuation.resume(returning: captured)
                while !stopped { _ = RunLoop.current.run(mode: .default, before: .distantFuture) }
                keepAlive.invalidate()
            }.start()
        }
    }

    /// Ends the loop from a block it runs itself, so the flag never crosses threads.
    func stop() {
        clientThread.current?.perform { [self] in stopped = true }
    }
}
#endif
