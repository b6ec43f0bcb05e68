import Foundation
import HTTPClient

extension Redaction {
    /// `interaction` with every rule applied.
    ///
    /// A value hidden in one place is hidden everywhere in the interaction: servers echo
    /// credentials (a debug endpoint returning the request headers, a token in a redirect URL),
    /// and a rule that only looked at the header would let the copy in the body through.
    package func apply(to interaction: Cassette.Interaction) -> Cassette.Interaction {
        let scrubbing = scrubbing(interaction)
        var result = interaction
        result.request.url = scrubbing.redacted(url: interaction.request.url)
        result.request.headers = interaction.request.headers.map(scrubbing.redacted)
        result.response.headers = interaction.response.headers.map(scrubbing.redacted)
        result.request.body = interaction.request.body.map { scrubbing.redacted($0, headers: interaction.request.headers) }
        result.response.body = interaction.response.body.map { scrubbing.redacted($0, headers: interaction.response.headers) }
        return result
    }

    /// This redaction, also hiding every value its name rules hide anywhere in `interaction`.
    ///
    /// A value that holds the placeholder was written by redaction, not sent by a user: a
    /// replayed `Set-Cookie: sid=REDACTED` comes back as `Cookie: sid=REDACTED` in the next
    /// request, and hiding that everywhere would find it in the recording it came from.
    func scrubbing(_ interaction: Cassette.Interaction) -> Redaction {
        let request = interaction.request
        let response = interaction.response
        let values =
            hiddenValues(url: request.url, in: request.headers, request.body)
            + hiddenValues(url: nil, in: response.headers, response.body)
        return hiding(values.filter { !$0.contains(Redaction.placeholder) })
    }

    private func hiddenValues(url: String?, in headers: [Cassette.Header], _ body: Cassette.Body?) -> [String] {
        hiddenValues(url: url, headers: headers.httpHeaders, body: body?.data, contentType: headers.contentType)
    }

    private func redacted(_ header: Cassette.Header) -> Cassette.Header {
        Cassette.Header(name: header.name, value: redacted(header: header.name, value: header.value))
    }

    /// The body redacted; the same body, not a copy, when nothing in it is hidden.
    private func redacted(_ body: Cassette.Body, headers: [Cassette.Header]) -> Cassette.Body {
        redactedBytes(body.data, contentType: headers.contentType).map(body.replacingData) ?? body
    }
}

extension [Cassette.Header] {
    var httpHeaders: HTTPHeaders {
        reduce(into: [:] as HTTPHeaders) { headers, header in headers.add(name: header.name, value: header.value) }
    }

    func value(of name: String) -> String? {
        first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    var contentType: String? { value(of: "Content-Type") }
}
