import Foundation
import HTTPClient

/// A way the connection breaks, for testing how a client copes with a server that misbehaves:
/// answered with ``MockResponse/fault(_:)``, or as a streamed body's `.failure` after the parts
/// that came first.
///
/// A ``StubServer`` does it on the wire (a reset is a TCP RST; garbage is the bytes, then the
/// close). The in-process transports deliver the `URLError` a real `URLSession` reports for it
/// (``sessionError(for:)``); a stall there is an answer that never comes, which the request's
/// timeout ends as `URLError(.timedOut)`.
///
/// ```swift
/// stubs.stub(.get, "/feed").respond(.fault(.connectionReset))
/// stubs.stub(.get, "/stream").respond(.streamed([.text("data: 1\n\n"), .failure(StubFault.malformedChunk)]))
/// ```
public enum StubFault: Error, Sendable, Hashable {
    /// The connection is reset (a TCP RST, not a graceful close), nothing answered.
    case connectionReset
    /// The connection closes without a byte of answer.
    case emptyResponse
    /// These bytes, which are not an HTTP response, then the close.
    case garbage(Data)
    /// A head that announces a chunked body, then a chunk whose size line is not hexadecimal,
    /// then the close. After streamed parts, the bad chunk follows them.
    case malformedChunk
    /// The server stops reading the request's body and resets the connection (a request
    /// without a body is reset once its head is read).
    case disconnectDuringRequestBody
    /// Nothing at all: the connection stays open, silent, until the client gives up (its
    /// timeout) or closes it, or the server's idle timeout ends it.
    case stall

    /// The error a `URLSession` on this platform reports for the fault, for the request to `url`.
    ///
    /// Measured on Linux (swift-corelibs-foundation over libcurl) against a socket doing each
    /// fault; on Apple platforms, the codes their loading system uses for the same failures.
    /// - Parameter url: The request's URL, as the error's failing URL.
    public func sessionError(for url: URL?) -> URLError {
        URLError(code, userInfo: [NSURLErrorFailingURLErrorKey: url as Any, NSLocalizedDescriptionKey: explanation])
    }

    private var code: URLError.Code {
        #if canImport(FoundationNetworking)
        switch self {
        case .connectionReset, .disconnectDuringRequestBody: return .networkConnectionLost
        case .emptyResponse: return .badServerResponse
        // libcurl refuses a reply that is not HTTP/1.x as an HTTP/0.9 one, reported as unsupportedURL.
        case .garbage: return .unsupportedURL
        case .malformedChunk: return .unknown
        case .stall: return .timedOut
        }
        #else
        switch self {
        case .connectionReset, .disconnectDuringRequestBody, .emptyResponse: return .networkConnectionLost
        case .garbage, .malformedChunk: return .cannotParseResponse
        case .stall: return .timedOut
        }
        #endif
    }

    private var explanation: String {
        switch self {
        case .connectionReset: return "The stubbed connection was reset by the server."
        case .emptyResponse: return "The stubbed server closed the connection without answering."
        case .garbage(let bytes): return "The stubbed server sent \(bytes.count) bytes that are not an HTTP response."
        case .malformedChunk: return "The stubbed server sent a chunk whose size is not hexadecimal."
        case .disconnectDuringRequestBody: return "The stubbed server reset the connection while the request body was sent."
        case .stall: return "The stubbed server never answered."
        }
    }
}

extension StubFault: CustomStringConvertible {
    public var description: String {
        switch self {
        case .connectionReset: return "connectionReset"
        case .emptyResponse: return "emptyResponse"
        case .garbage(let bytes): return "garbage(\(bytes.count) bytes)"
        case .malformedChunk: return "malformedChunk"
        case .disconnectDuringRequestBody: return "disconnectDuringRequestBody"
        case .stall: return "stall"
        }
    }
}
