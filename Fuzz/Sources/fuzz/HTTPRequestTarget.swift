import Foundation
import HTTPClient
@testable import HTTPClientStubs

extension Targets {
    /// The request parser of `StubServer`, on bytes as a hostile client sends them.
    ///
    /// Input: the first byte seeds where the rest is cut; the rest is what arrives on the
    /// connection. Small limits, so 413 and 431 are reached. Checked: the events (and the error)
    /// are the same whole, cut in pieces and byte by byte; an error carries a status the server
    /// answers and a reason on one line; every accepted request written back as a client writes
    /// it reads back as the same request, and makes a URLRequest or a typed error.
    static func httpRequest(_ data: Data) {
        guard let seed = data.first else { return }
        let bytes = Array(data.dropFirst())
        let limits = HTTPServerLimits(maximumHeadBytes: 1024, maximumHeaderCount: 16, maximumBodyBytes: 2048)
        let whole = parseRequests([bytes[...]], limits: limits)
        var cuts: [ArraySlice<UInt8>] = []
        var start = 0
        var step = Int(seed)
        while start < bytes.count {
            step = (step &* 37 &+ 11) & 0xFF
            let end = min(bytes.count, start + step % 17)
            cuts.append(bytes[start..<end])
            start = end
        }
        let pieces = parseRequests(cuts, limits: limits)
        let single = parseRequests(bytes.indices.map { bytes[$0...$0] }, limits: limits)
        if pieces != whole || single != whole {
            fail("a split changed the outcome: \(whole) / in pieces \(pieces) / byte by byte \(single)")
        }
        if let error = whole.error {
            if ![400, 413, 431, 501, 505].contains(error.status) { fail("the status \(error.status) for \(error)") }
            if error.reason.contains(where: \.isNewline) { fail("a reason on more than one line: \(error.reason)") }
        }
        for case .request(let request) in whole.events {
            let again = parseRequests([request.serialized()[...]], limits: HTTPServerLimits())
            guard again.error == nil, again.events == [.head(request.head), .request(request)] else {
                fail("\(request) written back reads as \(again)")
            }
            _ = try? request.urlRequest(base: baseURL)
        }
    }

    private static let baseURL = URL(string: "http://127.0.0.1:8080") ?? URL(fileURLWithPath: "/")

    private struct RequestOutcome: Equatable {
        var events: [HTTPRequestParser.Event] = []
        var error: HTTPRequestParseError?
    }

    private static func parseRequests(_ pieces: [ArraySlice<UInt8>], limits: HTTPServerLimits) -> RequestOutcome {
        var parser = HTTPRequestParser(limits: limits)
        var outcome = RequestOutcome()
        for piece in pieces {
            parser.append(piece)
            do {
                while let event = try parser.next() { outcome.events.append(event) }
            } catch {
                outcome.error = error
                break
            }
        }
        return outcome
    }
}
