import Foundation
import HTTPClient

/// One piece of a streamed stub body (``MockResponse/streamed(status:headers:_:)``): bytes, a
/// pause before the next piece, or the error that cuts the transfer short.
///
/// ```swift
/// stubs.stub(.get, "/feed").respond(.streamed([.text("data: 1\n\n"), .pause(0.5), .text("data: 2\n\n"),
///                                             .failure(URLError(.networkConnectionLost))]))
/// ```
public enum StreamPart: Sendable {
    /// Bytes, delivered as one chunk.
    case data(Data)
    /// Seconds before the next piece, waited out only where timing is simulated (the URLProtocol
    /// transport, and `MockURLSession` created with `simulatesLatency: true`).
    case pause(TimeInterval)
    /// The transfer breaks here: a streaming caller has received the chunks before, then this
    /// error; a caller of the whole body gets only the error.
    case failure(any Error)

    /// Text as UTF-8 bytes.
    public static func text(_ text: String) -> StreamPart { .data(Data(text.utf8)) }

    var data: Data? {
        if case .data(let data) = self { return data }
        return nil
    }

    var pause: TimeInterval? {
        if case .pause(let seconds) = self { return seconds }
        return nil
    }

    var failure: (any Error)? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
