import Foundation
import HTTPClient

extension Redaction {
    /// `interaction` with every rule applied.
    ///
    /// A value hidden in one place is hidden everywhere in the interaction: servers echo
    /// credentials (a debug endpoint returning the request headers, a token in a redirect URL),
    /// and a rule that only looked at the header would let the copy in the body through.
    public func apply(to interaction: Cassette.Interaction) -> Cassette.Interaction {
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
    func scrubbing(_ interaction: Cassette.Interaction) -> Redaction {
        let request = interaction.request, response = interaction.response
        return hiding(
            hiddenValues(url: request.url, headers: request.headers.httpHeaders, body: request.body?.data,
                         contentType: request.headers.contentType)
                + hiddenValues(url: nil, headers: response.headers.httpHeaders, body: response.body?.data,
                               contentType: response.headers.contentType))
    }

    private func redacted(_ header: Cassette.Header) -> Cassette.Header {
        Cassette.Header(name: header.name, value: redacted(header: header.name, value: header.value))
    }

    private func redacted(_ body: Cassette.Body, headers: [Cassette.Header]) -> Cassette.Body {
        guard let data = body.data else { return body }
        return Cassette.Body(redacted(body: data, contentType: headers.contentType))
    }
}

extension [Cassette.Header] {
    var httpHeaders: HTTPHeaders { HTTPHeaders(map { HTTPHeaders.Field(name: $0.name, value: $0.value) }) }

    func value(of name: String) -> String? {
        first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    var contentType: String? { value(of: "Content-Type") }
}
