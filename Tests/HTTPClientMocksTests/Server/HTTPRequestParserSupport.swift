import Foundation
import HTTPClient

@_spi(Engine) @testable import HTTPClientStubs

/// What a parser made of some bytes: its events, then the error that stopped it, if any.
struct ParseOutcome: Equatable, CustomStringConvertible {
    var events: [HTTPRequestParser.Event] = []
    var error: HTTPRequestParseError?

    var requests: [ParsedRequest] {
        events.compactMap { if case .request(let request) = $0 { request } else { nil } }
    }

    var description: String { "\(events) \(error.map { "then \($0)" } ?? "")" }
}

/// Feeds `pieces` one after another, reading every event each piece completes.
func parse(pieces: [[UInt8]], limits: HTTPServerLimits = HTTPServerLimits()) -> ParseOutcome {
    var parser = HTTPRequestParser(limits: limits)
    var outcome = ParseOutcome()
    for piece in pieces {
        parser.append(piece)
        do {
            while let event = try parser.next() { outcome.events.append(event) }
        } catch {
            outcome.error = error
            return outcome
        }
    }
    return outcome
}

/// Feeds `text` at once, its `\n`s written as CRLF unless `crlf` is false.
func parse(_ text: String, crlf: Bool = true, limits: HTTPServerLimits = HTTPServerLimits()) -> ParseOutcome {
    parse(pieces: [wire(text, crlf: crlf)], limits: limits)
}

/// The bytes of `text`, each `\n` written as CRLF unless `crlf` is false.
func wire(_ text: String, crlf: Bool = true) -> [UInt8] {
    Array((crlf ? text.replacingOccurrences(of: "\n", with: "\r\n") : text).utf8)
}
