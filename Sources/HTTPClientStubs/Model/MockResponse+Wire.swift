import Foundation
import HTTPClient

/// How a server puts a response on the wire, where a test asks for more than the defaults.
package struct WireForm: Sendable, Hashable {
    /// The status line's reason phrase; the standard one when nil.
    package var reason: String?
    /// The stub's own `Content-Length`, `Transfer-Encoding` and `Connection` lines and its body
    /// bytes go out as they are, and the connection closes after them.
    package var framedAsGiven = false
}

extension MockResponse {
    /// The same response with `phrase` as the reason phrase of its status line
    /// (`HTTP/1.1 200 Everything Is Fine`), where a ``StubServer`` writes it; a status line's
    /// phrase reaches no `URLSession` API, so the in-process transports have none to give.
    /// Control characters in `phrase` are written as spaces.
    public func reason(_ phrase: String) -> MockResponse {
        var copy = self
        copy.wire.reason = phrase
        return copy
    }

    /// The same response with its own framing, for testing a client against a wrong one: its
    /// `Content-Length`, `Transfer-Encoding` and `Connection` lines are sent as given (where
    /// the server would otherwise write the ones that describe the bytes it sends), its body is
    /// sent as its bytes (a `Transfer-Encoding: chunked` body is written already chunked, or not),
    /// and the connection closes after it.
    ///
    /// The in-process transports deliver what a `URLSession` makes of the same bytes: a body
    /// longer than its `Content-Length` is cut to it; a shorter one, or a chunked body that is
    /// malformed or ends early, fails as ``StubFault/malformedChunk`` or a closed connection do.
    ///
    /// ```swift
    /// stubs.stub(.get, "/short").respond(.status(200, headers: ["Content-Length": "10"], body: Data("abc".utf8)).framedAsGiven())
    /// ```
    public func framedAsGiven() -> MockResponse {
        var copy = self
        copy.wire.framedAsGiven = true
        return copy
    }

    /// The connection breaks as `fault` says (see ``StubFault``). A ``StubFault/malformedChunk``
    /// comes after a `200` head that announces a chunked body.
    public static func fault(_ fault: StubFault) -> MockResponse {
        if fault == .malformedChunk { return .streamed([.failure(fault)]) }
        return .error(fault)
    }
}
