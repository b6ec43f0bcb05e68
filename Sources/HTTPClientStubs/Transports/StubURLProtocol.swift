import Foundation
import HTTPClient

/// The URLProtocol transport: serves a ``StubRegistry`` through Foundation's real loading path,
/// so code that uses `URLSession` itself (including third-party code) is stubbed.
///
/// Each registry gets its own subclass (see `ProtocolSlots`), because on Linux a protocol
/// cannot tell which session a request came from: session headers are invisible to it.
/// Routing by class keeps parallel tests with their own registries apart.
///
/// What this transport relies on in swift-corelibs-foundation (6.3), each with the test that
/// fails when corelibs changes it (`CorelibsBehaviourTests`), or why none can:
/// - A protocol does not see the session's `httpAdditionalHeaders`: one class per registry
///   (`ProtocolSlots`). Test: `aSessionsAdditionalHeadersAreNotShownToAProtocol`.
/// - A completion-handler task keeps only the last `didLoad`: only `chunks(for:)` tasks, which
///   mark themselves, get a body in pieces (`urlProtocolClientsKeepEveryPiece`). Test:
///   `aCompletionHandlerTaskKeepsOnlyTheLastPieceAProtocolLoads`.
/// - A protocol's `Set-Cookie` never reaches the cookie storage, and `wasRedirectedTo` is a
///   fatalError: the session layer (`SessionBehaviour.exchange`) stores cookies and follows
///   redirects itself. Tests: `aProtocolsSetCookieDoesNotReachTheCookieStorage`,
///   `aRedirectAProtocolAnswersIsDeliveredAsTheFinalResponse`.
/// - An upload task's body is not given to the protocol: body conditions say it is hidden.
///   Test: `anUploadTasksBodyIsNotGivenToAProtocol`.
/// - The client is called on the session's work queue only (``ClientThread``: a suspend and
///   resume of the task brings the protocol back there); a call after `stopLoading()`, a
///   download task finished by a protocol, and `resume()` right after a protocol finished can
///   trap. No test can catch a trap: the transport never makes those calls, and the one test
///   that reaches the last (suspend and resume right after an immediate answer) runs on Apple
///   platforms only (README's Platforms table).
class StubURLProtocol: URLProtocol {
    /// The slot of the registry this class serves; overridden by each slot subclass.
    class var registrySlot: Int { -1 }

    /// What changes while loading, in one box: each box is an allocation per request.
    private struct LoadingState {
        /// Set by `stopLoading()` and by the last client call: no client call follows.
        var stopped = false
        /// The task that sends a pass-through request.
        var forwarded: URLSessionDataTask?
        /// Set by the first `startLoading`; a later one is the task resumed (see ``ClientThread``).
        var clientThread: ClientThread?
        /// What plays a streamed answer: stopped with the loading.
        var player: AnswerPlayer?
    }

    private let state = Locked(LoadingState())
    /// Cancelled by `stopLoading()`: a held answer lets go of the request.
    private let exchangeCancellation = ExchangeCancellation()

    override class func canInit(with request: URLRequest) -> Bool {
        // Every request of a stubbed session belongs to its registry; none reaches the network
        // unless the registry lets it through.
        true
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override func startLoading() {
        if let resumed = state.withLock({ $0.clientThread }) {
            resumed.drain()
            return
        }
        let clientThread = ClientThread.ofStartLoading(self)
        state.withLock { $0.clientThread = clientThread }
        clientThread.drain { start(on: clientThread) }
    }

    /// Resolves the request in the registry and delivers (or forwards) its answer.
    private func start(on clientThread: ClientThread) {
        guard let (registry, behaviour) = ProtocolSlots.shared.lease(of: Self.self) else {
            failWithoutRegistry(on: clientThread)
            return
        }
        if task is URLSessionDownloadTask {
            // corelibs traps when a custom protocol finishes a download task: fail before it can.
            fail(with: Self.downloadUnsupported(request), on: clientThread)
            return
        }
        let this = Unchecked(self)
        // An upload task's body stays inside the session: the protocol's request has neither
        // `httpBody` nor `httpBodyStream`. Body conditions must say so, not match an empty body.
        let bodyIsHidden = task is URLSessionUploadTask && request.httpBody == nil && request.httpBodyStream == nil
        behaviour.exchange(request, through: registry, bodyIsHidden: bodyIsHidden, cancellation: exchangeCancellation) { result in
            switch result {
            case .answer(let answer):
                this.value.deliver(answer, on: clientThread)
            case .passthrough(let request):
                this.value.forward(request, on: clientThread)
            }
        }
    }

    /// The base class (every slot was taken) or a class whose registry is gone: says which.
    private func failWithoutRegistry(on clientThread: ClientThread) {
        guard Self.registrySlot >= 0 else {
            fail(
                with: URLError(
                    .unknown,
                    userInfo: [
                        NSLocalizedDescriptionKey:
                            "More than \(ProtocolSlots.shared.capacity) StubRegistry instances with URLSessions are alive at once: "
                            + "let registries of finished tests go, or use MockURLSession(stubs:), which has no limit."
                    ]), on: clientThread)
            return
        }
        fail(
            with: URLError(
                .unknown,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "The StubRegistry of this URLSession no longer exists: keep the registry alive as long as its session."
                ]), on: clientThread)
    }

    /// Downloads through a URLProtocol cannot work on Linux; on Apple platforms the same
    /// error keeps the behaviour one.
    static func downloadUnsupported(_ request: URLRequest) -> URLError {
        var userInfo: [String: Any] = [
            NSLocalizedDescriptionKey:
                "Download tasks cannot be stubbed through a URLProtocol (swift-corelibs-foundation traps when a custom protocol "
                + "finishes one): use MockURLSession(stubs:), whose download(for:) writes the stubbed body to a file."
        ]
        if let url = request.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return URLError(.unsupportedURL, userInfo: userInfo)
    }

    override func stopLoading() {
        guard state.withLock({ $0.clientThread })?.stopEndsLoading(of: task) ?? true else { return }
        let (forwarded, player) = state.withLock { state in
            state.stopped = true
            return (state.forwarded, state.player)
        }
        player?.stop()
        forwarded?.cancel()
        exchangeCancellation.cancel()
    }

    // MARK: Delivering

    /// Plays the answer to the client: the head when it is due, then a streamed or throttled
    /// body piece by piece, its pauses waited out. On Linux a completion-handler task keeps only
    /// the last piece, and no task can be told apart from one but those of `chunks(for:)`, which
    /// mark themselves (`readsBodyInChunks`): any other gets the whole body in ONE `didLoad` at
    /// its end (see `urlProtocolClientsKeepEveryPiece`). An answer with nothing to wait for
    /// after its head goes in one hop to the client thread, where no `stopLoading` can come
    /// between its calls. The engine keeps the session's cache itself (one copy, every platform).
    ///
    /// The client is called later, on its thread, and not at all once loading has stopped (the
    /// task was cancelled meanwhile): the answer counts as delivered in that last call, once
    /// the client has all of it, so the player hands over its end (`.stop`) without counting.
    private func deliver(_ answer: Answer, on clientThread: ClientThread) {
        let this = Unchecked(self)
        guard answer.isStreamed else {
            // The head, the body and the end together, once the head is due.
            let player = AnswerPlayer(answer, waitsOutTime: true) { step in
                switch step {
                case .head(let response, _):
                    let body = answer.completion.data ?? Data()
                    this.value.call(on: clientThread, last: true) { client, urlProtocol in
                        client.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: .notAllowed)
                        if !body.isEmpty { client.urlProtocol(urlProtocol, didLoad: body) }
                        client.urlProtocolDidFinishLoading(urlProtocol)
                        Self.noteDelivered(answer)
                    }
                    return .more
                case .fail(let error):
                    this.value.fail(with: error, on: clientThread, delivering: answer)
                    return .stop
                case .end:
                    return .stop
                case .wait, .data:
                    return .more
                }
            }
            player.play()
            return
        }
        // Asking the task takes corelibs' lock: only a streamed answer asks.
        let inPieces = urlProtocolClientsKeepEveryPiece || task?.readsBodyInChunks == true
        let gathered = Locked(Data())
        let player = AnswerPlayer(answer, waitsOutTime: true) { step in
            guard !this.value.state.withLock({ $0.stopped }) else {
                this.value.state.withLock { $0.player = nil }
                return .stop
            }
            switch step {
            case .wait:
                break
            case .head(let response, _):
                this.value.call(on: clientThread) { $0.urlProtocol($1, didReceive: response, cacheStoragePolicy: .notAllowed) }
            case .data(let data):
                if inPieces {
                    this.value.call(on: clientThread) { $0.urlProtocol($1, didLoad: data) }
                } else {
                    gathered.withLock { $0.append(data) }
                }
            case .end:
                let body = gathered.withLock { $0 }
                this.value.call(on: clientThread, last: true) { client, urlProtocol in
                    if !body.isEmpty { client.urlProtocol(urlProtocol, didLoad: body) }
                    client.urlProtocolDidFinishLoading(urlProtocol)
                    Self.noteDelivered(answer)
                }
            case .fail(let error):
                this.value.fail(with: error, on: clientThread, delivering: answer)
            }
            switch step {
            case .end, .fail:
                // The player holds the protocol in this sink: let go of it at the end.
                this.value.state.withLock { $0.player = nil }
                return .stop
            default:
                return .more
            }
        }
        state.withLock { $0.player = player }
        player.play()
    }

    /// Sends `request` through a plain session. Done from another queue: `startLoading` runs on
    /// corelibs' process-wide URLSession queue, and creating or resuming a task of a second
    /// session from it is a re-entrant `sync` that traps.
    private func forward(_ request: URLRequest, on clientThread: ClientThread) {
        let this = Unchecked(self)
        DispatchQueue.global().async {
            let task = ProtocolSlots.shared.passthroughSession.dataTask(with: request) { data, response, error in
                guard let response else {
                    this.value.fail(with: error ?? URLError(.badServerResponse), on: clientThread)
                    return
                }
                this.value.call(on: clientThread) { $0.urlProtocol($1, didReceive: response, cacheStoragePolicy: .notAllowed) }
                if let data, !data.isEmpty {
                    this.value.call(on: clientThread) { $0.urlProtocol($1, didLoad: data) }
                }
                this.value.call(on: clientThread, last: true) { $0.urlProtocolDidFinishLoading($1) }
            }
            // Publish the task and read the flag under the lock stopLoading sets the flag and
            // reads the task under: one of the two always sees the other.
            let stopped = this.value.state.withLock { state in
                state.forwarded = task
                return state.stopped
            }
            if stopped { task.cancel() } else { task.resume() }
        }
    }

    /// Fails the task with `error`; when it ends `answer`, the answer counts as delivered once
    /// the client has the error.
    private func fail(with error: any Error, on clientThread: ClientThread, delivering answer: Answer? = nil) {
        call(on: clientThread, last: true) { client, urlProtocol in
            client.urlProtocol(urlProtocol, didFailWithError: error)
            if let answer { Self.noteDelivered(answer) }
        }
    }

    /// Counts `answer` delivered, away from the client's thread: on Linux that is corelibs'
    /// work queue, where an `onDelivery` handler that starts a task would re-enter it and trap.
    private static func noteDelivered(_ answer: Answer) {
        DispatchQueue.global().async { answer.noteDelivered() }
    }

    // MARK: Talking to the client safely

    /// Calls the client on `clientThread`, unless loading was stopped by then: after
    /// `stopLoading()` the Linux client can trap on any call. The `last` call is made once;
    /// the protocol then counts as stopped.
    private func call(
        on clientThread: ClientThread, last: Bool = false,
        _ body: @escaping @Sendable (any URLProtocolClient, URLProtocol) -> Void
    ) {
        let this = Unchecked(self)
        clientThread.perform {
            let wasStopped = this.value.state.withLock { state in
                defer { if last { state.stopped = true } }
                return state.stopped
            }
            guard !wasStopped, let client = this.value.client else { return }
            if last, !clientThread.mayEndLoading(of: this.value.task) { return }
            body(client, this.value)
        }
    }
}

/// Hands a non-Sendable Foundation object to a background closure. Used only for URLProtocol
/// instances, whose client callbacks Foundation makes safe to call from any thread.
// @unchecked: URLProtocol is not Sendable; Foundation makes its client callbacks safe from any thread.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
