import Foundation
import HTTPClient

extension StubRegistry {
    /// Every request in the log (``requests``) with the answer the registry gave it (kept while
    /// ``answers`` is keeping), redacted by the registry's ``redaction``, as HAR 1.2 of at most
    /// `byteLimit` bytes: what a failed test attaches so its traffic can be opened in a browser's
    /// developer tools, Charles or Proxyman.
    ///
    /// A request that got no HTTP response (no stub matched, an error instead, a pass-through
    /// whose answer came from the network) has status 0, as browsers write a failed request, and
    /// a `comment` saying what happened; ``Cassette/init(harData:file:)`` leaves such entries
    /// out. Bodies are cut, then the oldest entries left out, until the archive fits, and the
    /// archive says so where it does. A body whose secrets cannot be searched (a compressed one)
    /// is left out with a note; it never writes a value the redaction hides.
    package func trafficHAR(byteLimit: Int) -> Data {
        let answered = Dictionary(answers.entries.map { ($0.sequenceNumber, $0) }, uniquingKeysWith: { _, latest in latest })
        var exchanges: [TrafficExchange] = []
        var withheld = 0
        for request in requests {
            if let exchange = TrafficExchange(request, answered[request.sequenceNumber], redaction: redaction) {
                exchanges.append(exchange)
            } else {
                withheld += 1
            }
        }
        var notes: [String] = []
        if withheld > 0 { notes.append("\(withheld) exchanges are left out: a secret in their URL or headers could not be hidden.") }
        if !answers.isKeeping { notes.append("The registry did not keep its answers: each entry shows the request only.") }
        return TrafficExchange.archive(exchanges, notes: notes, byteLimit: byteLimit)
    }
}

/// One request and its answer as a failed test's traffic shows them: redacted, and with what a
/// reader of the HAR should know about it.
struct TrafficExchange {
    var interaction: Cassette.Interaction
    var notes: [String]

    /// The exchange, redacted; `nil` when a secret stays in its URL or headers whatever is done.
    init?(_ request: RecordedRequest, _ answer: AnswerLog.Entry?, redaction: Redaction) {
        notes = []
        if request.isBodyHidden { notes.append("The request had a body the transport could not see.") }
        let response: Cassette.Response
        switch answer?.answer {
        case .response(let status, let reasonPhrase, let headers, let body, let note):
            response = Cassette.Response(
                status: status, reasonPhrase: reasonPhrase, headers: headers.map { Cassette.Header(name: $0.name, value: $0.value) },
                body: body.isEmpty ? nil : Cassette.Body(body))
            if let note { notes.append("The answer: \(note).") }
        case .failure(let error):
            response = Cassette.Response(status: 0)
            notes.append("No response: the answer was the error \(error).")
        case .unmatched(let summary):
            response = Cassette.Response(status: 0)
            notes.append("No response: \(summary) (see unmatched-requests.txt).")
        case .passedThrough:
            response = Cassette.Response(status: 0)
            notes.append("Passed through to the network; the registry does not see the network's answer.")
        case nil:
            response = Cassette.Response(status: 0)
            notes.append("No answer recorded (still being decided, or the registry was not keeping its answers).")
        }
        let raw = Cassette.Interaction(
            request: Cassette.Request(
                method: request.method.rawValue, url: request.url.absoluteString,
                headers: request.headers.map { Cassette.Header(name: $0.name, value: $0.value) },
                body: request.body.isEmpty ? nil : Cassette.Body(request.body)),
            response: response, recordedAt: answer?.decidedAt ?? Date())
        interaction = redaction.apply(to: raw)
        do throws(CassetteError) {
            try Cassette(interactions: [interaction]).refuseLeaks(of: redaction, file: "(traffic)")
        } catch {
            // A compressed body cannot be searched for secrets, and a body may hold one the rules
            // could not hide: the bodies go, the rest stays when that is enough.
            interaction.request.body = nil
            interaction.response.body = nil
            notes.append("Bodies left out: \(error.placeDescription).")
            guard (try? Cassette(interactions: [interaction]).refuseLeaks(of: redaction, file: "(traffic)")) != nil else { return nil }
        }
    }

    /// The exchanges as HAR of at most `byteLimit` bytes: bodies cut shorter and shorter, then
    /// the oldest exchanges left out, until it fits.
    static func archive(_ exchanges: [TrafficExchange], notes: [String], byteLimit: Int) -> Data {
        // Bodies that cannot fit are cut from the start, not encoded whole first.
        let sizes = exchanges.flatMap { [$0.interaction.request.body?.data.count ?? 0, $0.interaction.response.body?.data.count ?? 0] }
        let largestBody = sizes.max() ?? 0
        var bodyLimit: Int? = sizes.reduce(0, +) > byteLimit ? min(byteLimit, largestBody) / 2 : nil
        var kept = exchanges[...]
        while true {
            var archiveNotes = notes
            let left = exchanges.count - kept.count
            if left > 0 { archiveNotes.append("The oldest \(left) exchanges are left out to keep the archive within \(byteLimit) bytes.") }
            let entries = kept.compactMap { $0.harEntry(bodyLimit: bodyLimit, archiveLimit: byteLimit) }
            let archive = HARArchive(entries: entries, comment: archiveNotes.isEmpty ? nil : archiveNotes.joined(separator: " "))
            if let data = try? archive.encoded(), data.count <= byteLimit { return data }
            if bodyLimit != 0 {
                bodyLimit = min(bodyLimit ?? byteLimit, largestBody) / 2
            } else if !kept.isEmpty {
                kept = kept.suffix(kept.count / 2)
            } else {
                // Not even an empty archive fits.
                return Data()
            }
        }
    }

    /// The HAR entry, each body cut to `bodyLimit` bytes when it is longer; `nil` when a date
    /// cannot be written.
    private func harEntry(bodyLimit: Int?, archiveLimit: Int) -> HARArchive.Entry? {
        var cut = interaction
        var notes = notes
        if let bodyLimit {
            let bodies: [(side: String, keyPath: WritableKeyPath<Cassette.Interaction, Cassette.Body?>)] = [
                ("request", \.request.body), ("response", \.response.body),
            ]
            for (side, keyPath) in bodies {
                guard let body = cut[keyPath: keyPath], body.data.count > bodyLimit else { continue }
                cut[keyPath: keyPath] = bodyLimit == 0 ? nil : Cassette.Body(Self.prefix(of: body, bytes: bodyLimit))
                notes.append(
                    "The \(side) body is cut to its first \(bodyLimit) of \(body.data.count) bytes, to keep the archive within "
                        + "\(archiveLimit) bytes.")
            }
        }
        guard var entry = try? cut.harEntry(streaming: nil) else { return nil }
        // Sizes are the real ones, cut or not.
        entry.request.bodySize = interaction.request.body?.data.count ?? 0
        entry.response.bodySize = interaction.response.body?.data.count ?? 0
        entry.response.content?.size = interaction.response.body?.data.count ?? 0
        entry.comment = notes.isEmpty ? nil : notes.joined(separator: " ")
        return entry
    }

    /// The first `bytes` of `body`, ending on a whole character when it is text.
    private static func prefix(of body: Cassette.Body, bytes: Int) -> Data {
        let data = body.data
        var end = data.startIndex + bytes
        if body.isText {
            // Back to the start of a character: a byte 0b10xxxxxx continues one.
            while end > data.startIndex, data[end] & 0xC0 == 0x80 { end -= 1 }
        }
        return data[data.startIndex..<end]
    }
}

extension CassetteError {
    /// Where a secret would have been written, for a note in the traffic.
    fileprivate var placeDescription: String {
        if case .secretWouldBeWritten(_, _, let place) = self { return "a secret could not be hidden in the \(place)" }
        return description
    }
}
