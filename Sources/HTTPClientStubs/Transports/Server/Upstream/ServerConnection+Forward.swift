import Foundation
import HTTPClient

extension ServerConnection {
    /// Sends `request` to the server's upstream and writes what comes back in `slot` once it has
    /// come, as a held answer is written once released: the slot keeps the answers after it in
    /// order meanwhile, the loop goes on with its other connections, and a connection that closes
    /// first cancels the transfer.
    func forward(_ request: URLRequest, to upstream: ServerUpstream, for head: HTTPRequestHead, in slot: Slot) {
        let cancellation = slot.cancellation
        upstream.forward(request, head: head, cancellation: cancellation) { [self] forwarded in
            loop.execute { [self] in
                deliver(forwarded, cancelled: cancellation.isCancelled, for: head, in: slot)
            }
        }
    }

    private func deliver(_ forwarded: ServerUpstream.Forwarded, cancelled: Bool, for head: HTTPRequestHead, in slot: Slot) {
        guard !isClosed else { return log(head, status: nil, answeredBy: Self.closedBeforeTheAnswer) }
        if cancelled {
            // The client's input ended while the upstream answered: as for a held answer, the
            // connection closes after the answers before it.
            log(head, status: nil, answeredBy: Self.closedBeforeTheAnswer)
            emit(pieces: [], in: slot, finished: true, closesConnection: true)
            return
        }
        switch forwarded {
        case .answer(let status, let fields, let body, let answeredBy):
            log(head, status: status, answeredBy: answeredBy)
            let fields = RequestAuthority.answerFields(fields, addressedTo: RequestAuthority(of: head), servedAt: context.baseURL)
            let pieces = HTTPResponseWriter.responsePieces(
                status: status, reason: nil, headers: fields, body: body, method: head.method, connection: head.answerConnectionLine)
            emit(pieces: pieces, in: slot, finished: true, closesConnection: !head.keepsAlive)
        case .failure(let status, let reason):
            log(head, status: status, answeredBy: reason)
            emit(Self.text(status: status, reason, for: head), in: slot, finished: true, closesConnection: !head.keepsAlive)
        }
    }
}
