import Dispatch
import Foundation
import HTTPClient

extension ServerConnection {
    /// Resolves `request` through the exchange and writes its answer in `slot`: the head after
    /// the stub's latency, then the body whole (`Content-Length`) or, when it comes in timed
    /// parts (streamed, throttled, server-sent events), chunked as the parts come.
    func answer(_ parsed: ParsedRequest, in slot: Slot) {
        if (parsed.body?.count ?? 0) >= Self.decidedOffTheLoopBytes || parsed.head.size >= Self.decidedOffTheLoopHeadBytes
            || parsed.head.headers.count >= Self.decidedOffTheLoopHeaderLines
        {
            return decideOffTheLoop(slot) { [self] in resolve(parsed, in: slot, offTheLoop: true) }
        }
        resolve(parsed, in: slot, offTheLoop: false)
        // A request read after the client's input ended: an answer decided now goes out, one
        // held by the test lets go, as in `endInput`.
        if inputEnded { slot.cancellation.cancel() }
    }

    /// Makes the request the stubs see and asks them, on the loop or, for a large request, on
    /// the thread `decideOffTheLoop` gives it; what is written goes back to the loop.
    private func resolve(_ parsed: ParsedRequest, in slot: Slot, offTheLoop: Bool) {
        let onTheLoop: (@escaping @Sendable () -> Void) -> Void = { [loop] work in offTheLoop ? loop.execute(work) : work() }
        let request: URLRequest
        do {
            request = try parsed.urlRequest(base: context.baseURL)
        } catch {
            return onTheLoop { [self] in fail(status: error.status, reason: error.reason, in: slot) }
        }
        if let own = ServerOwnAnswer(to: parsed.head, request: request, registry: context.registry) {
            return onTheLoop { [self] in
                log(parsed.head, status: own.status, answeredBy: own.logLine)
                emit(own.bytes(for: parsed.head), in: slot, finished: true, closesConnection: !parsed.head.keepsAlive)
            }
        }
        // A server, not a session: no redirect is followed (a 3xx stub goes out as a 3xx), no
        // cookie is kept or added (each `Set-Cookie` goes out as a line), nothing is cached, no
        // answer is too late (the client keeps its own clock), and a HEAD without a stub of its
        // own is answered by the GET's (RFC 9110 section 9.3.2).
        context.registry.respond(
            to: request, answersHeadAsGet: true, passesUnmatchedThrough: context.upstream?.passesUnmatchedThrough ?? false,
            headBytes: parsed.head.size, cancellation: slot.cancellation
        ) { [self] answer in
            let result: ExchangeResult
            var delivery = Delivery(request: request, arguments: (nil, nil, nil))
            switch answer {
            case .passthrough(let forwarded):
                result = .passthrough(forwarded)
            case .failed(let error):
                delivery.error = error
                result = .answer(Answer(delivery))
            case .respond(let response, let recorded, let stub):
                delivery.take(response, of: stub, to: recorded)
                result = .answer(Answer(delivery))
            }
            loop.execute { [self] in deliver(result, for: parsed.head, in: slot) }
        }
    }

    private func deliver(_ result: ExchangeResult, for head: HTTPRequestHead, in slot: Slot) {
        guard !isClosed else {
            // The client went away or the server stopped: the exchange was cancelled.
            return log(head, status: nil, answeredBy: Self.closedBeforeTheAnswer)
        }
        let closes = !head.keepsAlive
        let connection = head.answerConnectionLine
        let answer: Answer
        switch result {
        case .passthrough(let request):
            if let upstream = context.upstream { return forward(request, to: upstream, for: head, in: slot) }
            let url = context.registry.redaction.redacted(url: request.url?.absoluteString ?? head.target)
            log(head, status: 502, answeredBy: "a pass-through host: a server has no upstream, answered 502")
            let reason =
                "The registry lets \(url) through to the network (passThrough), but this StubServer has no upstream "
                + "to forward it to (Configuration.upstream): stub the request instead, or give it one."
            emit(Self.text(status: 502, reason, for: head), in: slot, finished: true, closesConnection: closes)
            return
        case .answer(let decided):
            answer = decided
        }
        let answered = answer.answered.last
        guard let http = answer.response as? HTTPURLResponse else {
            let failure = answer.completion.error
            if slot.cancellation.isCancelled, (failure as? URLError)?.code == .cancelled {
                // Held when the client's input ended: the connection closes after the answers before it.
                log(head, status: nil, answeredBy: Self.closedBeforeTheAnswer)
                emit(pieces: [], in: slot, finished: true, closesConnection: true)
                return
            }
            if let unmatched = failure as? UnmatchedRequestError {
                let status = context.configuration.unmatchedStatus
                log(head, status: status) { unmatched.report.summary }
                emit(Self.text(status: status, unmatched.description, for: head), in: slot, finished: true, closesConnection: closes)
                return
            }
            if let error = failure, Self.isUnreadableFile(error), let (stub, request) = answered {
                // A client cannot be handed the error, and a closed connection would not say
                // why: the test author reads the reason in a 500, and in the log line.
                let reason = context.registry.redaction.hidingTheCredentials(of: request).redacted(text: "\(error)")
                log(head, status: 500, answeredBy: "\(stub): \(reason)")
                let text = "The stub \(stub) matched this request but could not answer it: \(reason)"
                emit(Self.text(status: 500, text, for: head), in: slot, finished: true, closesConnection: closes)
                answer.noteDelivered()
                return
            }
            // A stubbed transport error: the connection breaks as the fault says (any other
            // error: it closes without an answer), after the answers before it and the latency.
            let fault = failure as? StubFault ?? .emptyResponse
            log(head, status: nil, answeredBy: answered, otherwise: "the request failed: \(failure.map { "\($0)" } ?? "no response")")
            play(answer, in: slot) { [self] step in
                if case .fail = step { breakConnection(fault, afterHead: false, chunked: false, in: slot) }
                return .more
            }
            return
        }
        log(head, status: http.statusCode, answeredBy: answered, otherwise: "the registry")
        // A URL of the server's own address points where the client went instead (see RequestAuthority).
        let fields = RequestAuthority.answerFields(
            answer.headerFields.map(Array.init) ?? Self.fields(of: http), addressedTo: RequestAuthority(of: head),
            servedAt: context.baseURL)
        let status = http.statusCode
        let reason = answer.wire.reason
        let asGiven = answer.wire.framedAsGiven
        guard asGiven || (answer.isStreamed && head.method != "HEAD" && !HTTPResponseWriter.isBodiless(status)) else {
            // Framed by its length: written whole when its head is due, the body from the stub's
            // own bytes (held once, however slowly it is read).
            play(answer, in: slot) { [self] step in
                guard case .head = step else { return .more }
                let pieces = HTTPResponseWriter.responsePieces(
                    status: status, reason: reason, headers: fields, body: answer.completion.data ?? Data(), method: head.method,
                    connection: connection)
                return emit(pieces: pieces, in: slot, finished: true, closesConnection: closes) ? .more : .stop
            }
            return
        }
        // HTTP/1.0 has no chunked coding (RFC 9112 section 6.1): there the body ends at the close.
        // A stub's own framing is its own business: its bytes go out as they are, then the close.
        let chunked = head.version == .http11 && !asGiven
        let framing: HTTPResponseWriter.Framing = asGiven ? .asGiven : chunked ? .chunked : .untilClose
        play(answer, in: slot) { [self] step in
            let written: Bool
            switch step {
            case .wait:
                return .more
            case .head:
                written = emit(
                    HTTPResponseWriter.head(
                        status: status, reason: reason, headers: fields, framing: framing, connection: chunked ? connection : .close),
                    in: slot)
            case .data(let data):
                if head.method == "HEAD" { return .more }
                written = emit(chunked ? HTTPResponseWriter.chunk(data) : Array(data), in: slot)
                // A reader slower than the stream: the stream waits for it.
                if written, isBackedUp { return .full }
            case .end:
                written = emit(chunked ? HTTPResponseWriter.lastChunk : [], in: slot, finished: true, closesConnection: closes || !chunked)
            case .fail(let error):
                // No last chunk: the transfer is broken, as the stub says (closed, unless a fault says how).
                breakConnection(error as? StubFault ?? .emptyResponse, afterHead: true, chunked: chunked, in: slot)
                written = true
            }
            return written ? .more : .stop
        }
    }

    /// Ends `slot`'s answer the way `fault` breaks a connection, after what was written of it.
    /// - Parameters:
    ///   - afterHead: Whether the answer's head is out.
    ///   - chunked: Whether the body after the head is chunked.
    private func breakConnection(_ fault: StubFault, afterHead: Bool, chunked: Bool, in slot: Slot) {
        switch fault {
        case .connectionReset, .disconnectDuringRequestBody:
            emit(pieces: [], in: slot, finished: true, breaks: .reset)
        case .emptyResponse:
            emit(pieces: [], in: slot, finished: true, closesConnection: true)
        case .garbage(let bytes):
            emit(pieces: [bytes], in: slot, finished: true, closesConnection: true)
        case .malformedChunk:
            var bytes: [UInt8] = []
            if !afterHead {
                bytes = HTTPResponseWriter.head(status: 200, headers: [], framing: .chunked, connection: .close)
            }
            // A body the client reads to the close has no chunks to get wrong.
            if chunked || !afterHead { bytes += HTTPResponseWriter.malformedChunk }
            emit(pieces: [Data(bytes)], in: slot, finished: true, closesConnection: true)
        case .stall:
            emit(pieces: [], in: slot, finished: true, breaks: .stall)
        }
    }

    /// Plays `answer` in `slot` on the connection's loop, its waits on the loop's timers.
    private func play(_ answer: Answer, in slot: Slot, _ sink: @escaping (Answer.Step) -> AnswerPlayer.Flow) {
        let loop = loop
        // The sink runs on the loop only: the player is started here and goes on from the loop's timers.
        nonisolated(unsafe) let sink = sink
        let onTheLoop: AnswerPlayer.Scheduler = { seconds, work in loop.schedule(after: seconds, work) }
        let player = AnswerPlayer(answer, waitsOutTime: true, scheduler: onTheLoop) { sink($0) }
        slot.player = player
        player.play()
    }

    static let closedBeforeTheAnswer = "the connection closed before the answer"

    /// Whether `error` says a stub's file could not be used (a fixture that cannot be read or
    /// parsed, a response file): the stub is broken, which a 500 says, where any other error a
    /// stub gives is a transport failure it stubs, which a closed connection plays.
    private static func isUnreadableFile(_ error: any Error) -> Bool {
        error is FixtureError || error is ResponseFileError
    }

    /// A plain-text answer the server writes itself (the unmatched report, the pass-through refusal).
    static func text(status: Int, _ text: String, for head: HTTPRequestHead) -> [UInt8] {
        HTTPResponseWriter.response(
            status: status, headers: [HTTPHeaders.Field(name: "Content-Type", value: "text/plain; charset=utf-8")],
            body: Data((text + "\n").utf8), method: head.method, connection: head.answerConnectionLine)
    }

    /// The header lines of a response that kept no list of its own (one field per name).
    private static func fields(of response: HTTPURLResponse) -> [HTTPHeaders.Field] {
        response.allHeaderFields.map { HTTPHeaders.Field(name: "\($0.key)", value: "\($0.value)") }
    }

    /// The stub, and the file or recorded interaction it answered from when it has one
    /// (`fixtures Examples/Fixtures: the file …/GET|-users-1.json`): the line httpc serve prints.
    /// A fixture's name is made from the request's query and body, so the credentials of the
    /// request are hidden in it as in the target.
    private static func answeredBy(_ stub: Stub, _ request: RecordedRequest, _ redaction: Redaction) -> String {
        guard let source = request.answerSource, source != .stub else { return "\(stub)" }
        let replayed = if case .recording = source { "replayed " } else { "" }
        return redaction.hidingTheCredentials(of: request).redacted(text: "\(stub): \(replayed)\(source)")
    }

    /// Logs the answer by `answered`, or says `otherwise`, when the server has a log.
    private func log(_ head: HTTPRequestHead, status: Int?, answeredBy answered: (Stub, RecordedRequest)?, otherwise: String) {
        let redaction = context.registry.redaction
        log(head, status: status) { answered.map { Self.answeredBy($0, $1, redaction) } ?? otherwise }
    }

    /// Logs the answer, when the server has a log. What it says is made on the log's queue, and
    /// only then; until it is, the entry is counted as large as the head (`answeredBy` may hold
    /// the request).
    func log(_ head: HTTPRequestHead, status: Int?, answeredBy: @escaping @Sendable () -> String) {
        guard let log = context.log else { return }
        let (method, redaction) = (head.method, context.registry.redaction)
        log.send(target: head.target, bytes: head.size) { target in
            StubServer.LogEntry(method: method, target: redaction.redacted(url: target), status: status, answeredBy: answeredBy())
        }
    }

    /// Logs the answer, when the server has a log, as `answeredBy` says.
    func log(_ head: HTTPRequestHead, status: Int?, answeredBy: String) {
        log(head, status: status) { answeredBy }
    }
}
