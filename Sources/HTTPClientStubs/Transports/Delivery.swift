import Foundation
import HTTPClient

/// What an exchange gathers hop by hop (latency, the stubs that answered, the body and its
/// parts): made into an ``Answer`` when it ends.
struct Delivery: Sendable {
    /// The last request sent (the redirect target, after redirects).
    package var request: URLRequest
    package var data: Data?
    package var response: URLResponse?
    /// The stub's own header lines, for a transport that writes them out (``StubServer``): one
    /// field per line, so several `Set-Cookie` stay apart (`response` joins them into one).
    package var headerFields: HTTPHeaders?
    /// How a server writes the head and frames the body.
    package var wire = WireForm()
    package var error: (any Error)?
    /// Seconds before the response headers arrive: every hop's latency, or the timeout.
    package var latency: TimeInterval = 0
    /// Seconds the body takes after the headers.
    package var downloadTime: TimeInterval = 0
    /// The body in pieces, for a caller that streams (empty: `data` in one piece).
    package var parts: [StreamPart] = []
    /// The stored answer the first hop asks about (`If-None-Match`): a `304` delivers it.
    var revalidating: CachedURLResponse?
    /// The stub of every hop with the request it answered, told once the delivery is made.
    package var answered: [(stub: Stub, request: RecordedRequest)] = []

    package init(request: URLRequest, error: any Error) {
        self.request = request
        self.error = error
    }

    package init(request: URLRequest, arguments: (Data?, URLResponse?, (any Error)?)) {
        self.request = request
        (data, response, error) = arguments
    }
}
