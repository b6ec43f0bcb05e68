import Foundation
import HTTPClient

/// The answers a registry gave, kept when its owner asks (a test that attaches its traffic when
/// it fails): the request log holds what came in, this what the registry decided to send back.
///
/// Bounded as the request log is (``StubRegistry/retainedRequests``): a registry behind a
/// server under load keeps the latest answers only. Nothing is kept until ``isKeeping`` is set,
/// so registries nobody attaches pay one lock per request.
package final class AnswerLog: Sendable {
    /// One answer, found again by the ``RecordedRequest/sequenceNumber`` of its request.
    package struct Entry: Sendable {
        /// The sequence number of the request answered.
        package let sequenceNumber: Int
        /// When the registry decided.
        package let decidedAt: Date
        /// What it decided.
        package let answer: Answer
    }

    /// What a request got from the registry.
    package enum Answer: Sendable {
        /// An HTTP response; `note` says what else happened (a transfer cut short).
        case response(status: Int, reasonPhrase: String?, headers: HTTPHeaders, body: Data, note: String?)
        /// A transport error instead of a response.
        case failure(String)
        /// No stub matched: the request failed with the unmatched report.
        case unmatched(summary: String)
        /// The request went to the real network, whose answer the registry does not see.
        case passedThrough
    }

    private struct State {
        var isKeeping = false
        var entries: [Entry] = []
    }

    private let state = Locked(State())

    init() {}

    /// Whether answers are kept from now on.
    package var isKeeping: Bool {
        get { state.withLock { $0.isKeeping } }
        set { state.withLock { $0.isKeeping = newValue } }
    }

    /// The answers kept, in the order they were decided.
    package var entries: [Entry] { state.withLock { $0.entries } }

    /// Keeps what `resolution` answers to the request numbered `sequenceNumber`, when keeping, and
    /// the latest `limit` answers in all.
    func note(_ resolution: StubRegistry.Resolution, for sequenceNumber: Int, limit: @autoclosure () -> Int) {
        state.withLock { state in
            guard state.isKeeping else { return }
            state.entries.append(Entry(sequenceNumber: sequenceNumber, decidedAt: Date(), answer: Self.answer(resolution)))
            let limit = limit()
            // Let go in batches, as the request log does, so the cost is spread over many answers.
            if state.entries.count > limit + max(16, limit / 4) { state.entries.removeFirst(state.entries.count - limit) }
        }
    }

    /// Empties the log, as the registry's ``StubRegistry/reset()`` empties its request log.
    func forget() {
        state.withLock { $0.entries.removeAll() }
    }

    private static func answer(_ resolution: StubRegistry.Resolution) -> Answer {
        switch resolution {
        case .respond(let response, _, _): answer(response)
        case .passthrough: .passedThrough
        case .unmatched(let error): .unmatched(summary: error.report.summary)
        case .failed(let error): .failure("\(error)")
        }
    }

    private static func answer(_ response: MockResponse) -> Answer {
        switch response.outcome {
        case .http(let status, let headers, let body):
            let cut = response.streamParts.lazy.compactMap(\.failure).first
            return .response(
                status: status, reasonPhrase: response.wire.reason, headers: headers, body: body,
                note: cut.map { "the transfer fails after the body's parts that came first: \($0)" })
        case .failure(let error):
            return .failure("\(error)")
        case .completion(let data, let response as HTTPURLResponse, let error):
            return .response(
                status: response.statusCode, reasonPhrase: nil, headers: HTTPClient.Response<Data>(response, body: nil).headers,
                body: data ?? Data(), note: error.map { "delivered with the error \($0)" })
        case .completion(_, _, let error?):
            return .failure("\(error)")
        case .completion:
            return .failure("a response that is not HTTP")
        case .computed:
            // A resolved response is never computed; kept readable should that change.
            return .failure("an answer computed later")
        }
    }
}
