import Dispatch
import Foundation
import HTTPClient

extension ServerConnection {
    /// Resolves `request` through the exchange and writes its answer in `slot`: the head after
    /// the stub's latency, then the body whole (`Content-Length`) or, when it comes in timed
    /// parts (streamed, throttled, server-sent events), chunked as the parts come.
    func answer(_ parsed: ParsedRequest, in slot: Slot) {
        var request: URLRequest
        do {
            request = try parsed.urlRequest(base: context.baseURL)
        } catch {
            return fail(status: error.status, reason: error.reason, in: slot)
        }
        if let own = ServerOwnAnswer(to: parsed.head, request: request, registry: context.registry) {
            log(parsed.head, status: own.status, answeredBy: own.logLine)
            emit(own.bytes(for: parsed.head), in: slot, finished: true, closesConnection: !parsed.head.keepsAlive)
            return
        }
        // No client timeout on a server: the client keeps its own clock.
        request.timeoutInterval = 0
        context.registry.exchange(request, behaviour: context.behaviour, cancellation: slot.cancellation) { [self] result in
            queue.async { [self] in deliver(result, for: parsed.head, in: slot) }
        }
        // A request read after the client's input ended: an answer decided now goes out, one
        // held by the test lets go, as in `endInput`.
        if inputEnded { slot.cancellation.cancel() }
    }

    private func deliver(_ result: ExchangeResult, for head: HTTPRequestHead, in slot: Slot) {
        guard !isClosed else {
            // The client went away or the server stopped: the exchange was cancelled.
            return log(head, status: nil, answeredBy: Self.closedBeforeTheAnswer)
        }
        let closes = !head.keepsAlive
        let connection = head.answerConnectionLine
        let delivery: Delivery
        switch result {
        case .passthrough(let request):
            let url = context.registry.redaction.redacted(url: request.url?.absoluteString ?? head.target)
            log(head, status: 502, answeredBy: "a pass-through host: a server has no upstream, answered 502")
            let reason =
                "The registry lets \(url) through to the network (passThrough), but a StubServer has no upstream "
                + "to forward it to: stub the request instead."
            emit(Self.text(status: 502, reason, for: head), in: slot, finished: true, closesConnection: closes)
            return
        case .deliver(let delivered):
            delivery = delivered
        }
        if slot.cancellation.isCancelled, (delivery.error as? URLError)?.code == .cancelled {
            // Held when the client's input ended: the connection closes after the answers before it.
            log(head, status: nil, answeredBy: Self.closedBeforeTheAnswer)
            emit([], in: slot, finished: true, closesConnection: true)
            return
        }
        let answeredBy = delivery.answered.last.map { Self.answeredBy($0.stub, $0.request) }
        guard let http = delivery.response as? HTTPURLResponse, delivery.error == nil || !delivery.parts.isEmpty else {
            if let unmatched = delivery.error as? UnmatchedRequestError {
                let status = context.configuration.unmatchedStatus
                log(head, status: status, answeredBy: unmatched.report.summary)
                emit(Self.text(status: status, unmatched.description, for: head), in: slot, finished: true, closesConnection: closes)
                return
            }
            // A stubbed transport error: the client sees the connection end without an answer,
            // after the answers before it and the stub's latency.
            log(head, status: nil, answeredBy: answeredBy ?? "the request failed: \(delivery.error.map { "\($0)" } ?? "no response")")
            after(delivery.latency + delivery.downloadTime) { [self] in
                emit([], in: slot, finished: true, closesConnection: true)
                delivery.noteDelivered()
            }
            return
        }
        log(head, status: http.statusCode, answeredBy: answeredBy ?? "the registry")
        // A URL of the server's own address points where the client went instead (see RequestAuthority).
        let fields = RequestAuthority.answerFields(
            delivery.headerFields.map(Array.init) ?? Self.fields(of: http), addressedTo: RequestAuthority(of: head),
            servedAt: context.baseURL)
        let status = http.statusCode
        after(delivery.latency) { [self] in
            guard !delivery.parts.isEmpty, head.method != "HEAD", !HTTPResponseWriter.isBodiless(status) else {
                let body = delivery.data ?? Data()
                let bytes = HTTPResponseWriter.response(
                    status: status, headers: fields, body: body, method: head.method, connection: connection)
                emit(bytes, in: slot, finished: true, closesConnection: closes)
                delivery.noteDelivered()
                return
            }
            // HTTP/1.0 has no chunked coding (RFC 9112 section 6.1): there the body ends at the close.
            let chunked = head.version == .http11
            let start = HTTPResponseWriter.head(
                status: status, headers: fields, framing: chunked ? .chunked : .untilClose, connection: chunked ? connection : .close)
            guard emit(start, in: slot) else { return }
            send(delivery.parts[...], of: delivery, in: slot, closes: closes || !chunked, chunked: chunked)
        }
    }

    static let closedBeforeTheAnswer = "the connection closed before the answer"

    /// A plain-text answer the server writes itself (the unmatched report, the pass-through refusal).
    private static func text(status: Int, _ text: String, for head: HTTPRequestHead) -> [UInt8] {
        HTTPResponseWriter.response(
            status: status, headers: [HTTPHeaders.Field(name: "Content-Type", value: "text/plain; charset=utf-8")],
            body: Data((text + "\n").utf8), method: head.method, connection: head.answerConnectionLine)
    }

    /// The header lines of a response that kept no list of its own (one field per name).
    private static func fields(of response: HTTPURLResponse) -> [HTTPHeaders.Field] {
        response.allHeaderFields.map { HTTPHeaders.Field(name: "\($0.key)", value: "\($0.value)") }
    }

    /// Writes each data part as a chunk (as it is, when not `chunked`), waiting out the pauses;
    /// a failure part cuts the connection (the client sees the body end early), the end writes
    /// the last chunk.
    private func send(_ parts: ArraySlice<StreamPart>, of delivery: Delivery, in slot: Slot, closes: Bool, chunked: Bool) {
        var rest = parts
        while let part = rest.popFirst() {
            switch part {
            case .data(let data):
                guard data.isEmpty || emit(chunked ? HTTPResponseWriter.chunk(data) : Array(data), in: slot) else { return }
            case .pause(let seconds):
                let remaining = rest
                after(seconds) { [self] in send(remaining, of: delivery, in: slot, closes: closes, chunked: chunked) }
                return
            case .failure:
                // No last chunk: the transfer is broken, as the stub says.
                emit([], in: slot, finished: true, closesConnection: true)
                delivery.noteDelivered()
                return
            }
        }
        emit(chunked ? HTTPResponseWriter.lastChunk : [], in: slot, finished: true, closesConnection: closes)
        delivery.noteDelivered()
    }

    /// Runs `body` on the connection's queue after `seconds`: no thread waits.
    private func after(_ seconds: TimeInterval, _ body: @escaping @Sendable () -> Void) {
        // Clamped as the other transports clamp: NaN is no wait, and no wait overflows.
        guard seconds > 0 else { return body() }
        queue.asyncAfter(deadline: .now() + min(seconds, 1e9), execute: body)
    }

    /// The stub, and the file or recorded interaction it answered from when it has one
    /// (`fixtures Examples/Fixtures: the file …/GET|-users-1.json`): the line httpc serve prints.
    private static func answeredBy(_ stub: Stub, _ request: RecordedRequest) -> String {
        guard let source = request.answerSource, source != .stub else { return "\(stub)" }
        return "\(stub): \(source)"
    }

    private func log(_ head: HTTPRequestHead, status: Int?, answeredBy: String) {
        guard let log = context.configuration.log else { return }
        let target = context.registry.redaction.redacted(url: head.target)
        log(StubServer.LogEntry(method: head.method, target: target, status: status, answeredBy: answeredBy))
    }
}
