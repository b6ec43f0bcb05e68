import Foundation
import HTTPClient

extension Redaction {
    /// This redaction, also hiding every value its name rules hide in `request` (its URL's
    /// password and hidden parameters, hidden headers, form fields and JSON members), wherever
    /// else a text repeats them: a report quoting the request, a fixture's file name made from
    /// its query or body.
    func hidingTheCredentials(of request: RecordedRequest) -> Redaction {
        hiding(
            hiddenValues(
                url: request.url.absoluteString, headers: request.headers, body: request.body,
                contentType: request.headers["Content-Type"]))
    }
}

extension RecordedRequest {
    /// `GET https://h/feed?token=REDACTED`: the request in one line, its URL redacted.
    func redactedLine(_ redaction: Redaction) -> String {
        "\(method) \(redaction.redacted(url: url.absoluteString))"
    }
}
