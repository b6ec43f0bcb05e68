import Foundation
import HTTPClient

/// A canned response written as text: a status line, header lines, ONE blank line, the body.
///
/// ```
/// HTTP/1.1 201 Created
/// Content-Type: application/json
/// Location: /users/7
///
/// {"id": 7}
/// ```
///
/// LF and CRLF line ends are both accepted; the split is at the FIRST blank line, so blank lines
/// inside the body survive; header values are trimmed; repeated headers are kept; the body is
/// kept byte for byte (binary too). `curl -i` output has the same shape and parses as well,
/// including its interim `100 Continue` blocks. Anything malformed is a ``FixtureError`` that
/// names the file and the line.
public struct HTTPResponseFile: Sendable, Hashable {
    /// The status code of the status line.
    @_spi(Engine) public var statusCode: Int
    /// The header fields, in file order, repeated ones kept.
    @_spi(Engine) public var headers: HTTPHeaders
    /// The bytes after the first blank line, exactly as in the file.
    @_spi(Engine) public var body: Data

    /// A response file with these parts, to write one.
    package init(statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }

    /// Parses `data`; `file` names the source in errors. For the fuzzers and benchmarks;
    /// users load a file with ``init(contentsOf:)``.
    @_spi(Engine) public init(parsing data: Data, file: String) throws(FixtureError) {
        var offset = data.startIndex
        var lineNumber = 1
        while true {
            let block = try Self.parseHead(data, from: offset, firstLine: lineNumber, file: file)
            // curl -i prints interim responses (100 Continue) before the final one.
            if (100...199).contains(block.statusCode), data[block.bodyStart...].starts(with: Data("HTTP/".utf8)) {
                offset = block.bodyStart
                lineNumber = block.nextLine
                continue
            }
            statusCode = block.statusCode
            headers = block.headers
            body = Data(data[block.bodyStart...])
            return
        }
    }

    /// Reads and parses the file at `url`.
    ///
    /// - Throws: ``FixtureError/unreadable(file:reason:)`` when it is not a regular file (a FIFO,
    ///   a directory, a link to nothing, links that loop) or the system will not read it, with
    ///   the reason; ``FixtureError/malformed(file:line:reason:)`` when it is not a response.
    public init(contentsOf url: URL) throws(FixtureError) {
        switch FileKind.contentsOfRegularFile(at: url) {
        case .success(let data): try self.init(parsing: data, file: url.path)
        case .failure(let unreadable): throw .unreadable(file: url.path, reason: unreadable.reason)
        }
    }

    /// The response a stub serves. A `text/event-stream` body is served one event per chunk
    /// (cut after each blank line), so stream parsers meet it as a server sends it.
    public var mockResponse: MockResponse {
        guard headers["Content-Type"]?.lowercased().hasPrefix("text/event-stream") == true else {
            return .status(statusCode, headers: headers, body: body)
        }
        return .streamed(status: statusCode, headers: headers, Self.events(of: body).map(StreamPart.data))
    }

    /// `body` cut after each blank line (a line end right after another: LF, CR or CR LF);
    /// what follows the last one is a chunk of its own.
    static func events(of body: Data) -> [Data] {
        var events: [Data] = []
        var start = body.startIndex
        var index = body.startIndex
        var lineJustEnded = false
        while index < body.endIndex {
            let byte = body[index]
            guard byte == lineFeed || byte == carriageReturn else {
                index += 1
                lineJustEnded = false
                continue
            }
            let next = body.index(after: index)
            index = byte == carriageReturn && next < body.endIndex && body[next] == lineFeed ? next + 1 : next
            if lineJustEnded {
                events.append(body[start..<index])
                start = index
            }
            lineJustEnded.toggle()
        }
        if start < body.endIndex { events.append(body[start...]) }
        return events
    }

    // MARK: Parsing

    private struct Head {
        var statusCode: Int
        var headers: HTTPHeaders
        var bodyStart: Data.Index
        var nextLine: Int
    }

    private static let lineFeed = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")

    /// Reads the status line and headers up to the first blank line. Only this part is
    /// decoded as text; the body is never scanned, so large bodies cost a slice.
    private static func parseHead(_ data: Data, from start: Data.Index, firstLine: Int, file: String) throws(FixtureError) -> Head {
        var lineStart = start
        var lineNumber = firstLine
        var statusCode: Int?
        var headers: HTTPHeaders = [:]
        while lineStart < data.endIndex {
            let lineEnd = data[lineStart...].firstIndex(of: lineFeed) ?? data.endIndex
            var contentEnd = lineEnd
            if contentEnd > lineStart, data[contentEnd - 1] == carriageReturn { contentEnd -= 1 }
            let next = lineEnd < data.endIndex ? lineEnd + 1 : data.endIndex
            guard let line = String(data: data[lineStart..<contentEnd], encoding: .utf8) else {
                throw .malformed(file: file, line: lineNumber, reason: "the line is not UTF-8 text")
            }
            if let code = statusCode {
                if line.isEmpty {
                    guard lineEnd < data.endIndex else {
                        return Head(statusCode: code, headers: headers, bodyStart: data.endIndex, nextLine: lineNumber + 1)
                    }
                    return Head(statusCode: code, headers: headers, bodyStart: next, nextLine: lineNumber + 1)
                }
                let (name, value) = try parseHeader(line, file: file, line: lineNumber)
                headers.add(name: name, value: value)
            } else {
                statusCode = try parseStatusLine(line, file: file, line: lineNumber)
            }
            guard lineEnd < data.endIndex else { break }
            lineStart = next
            lineNumber += 1
        }
        guard statusCode != nil else {
            throw .malformed(
                file: file, line: lineNumber, reason: "the file is empty: a status line such as \"HTTP/1.1 200 OK\" is required")
        }
        throw .malformed(
            file: file, line: lineNumber + 1,
            reason: "no blank line after the headers (one is required, even with no body)")
    }

    /// The versions a status line may name: HTTP/1.0, HTTP/1.1, and HTTP/2 and HTTP/3 as curl
    /// prints them.
    static let knownVersions: Set<Substring> = ["HTTP/1.0", "HTTP/1.1", "HTTP/2", "HTTP/2.0", "HTTP/3", "HTTP/3.0"]

    /// `HTTP/1.1 201 Created`, `HTTP/2 200`, `HTTP/1.0 404` (RFC 9112 §4): a known version, one
    /// space, three digits in 100...599, then an optional space and reason.
    private static func parseStatusLine(_ line: String, file: String, line number: Int) throws(FixtureError) -> Int {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts[0].hasPrefix("HTTP/") else {
            throw .malformed(
                file: file, line: number,
                reason: "\"\(line.prefix(60))\" is not a status line such as \"HTTP/1.1 200 OK\"")
        }
        guard knownVersions.contains(parts[0]) else {
            throw .malformed(
                file: file, line: number,
                reason: "\"\(parts[0].prefix(20))\" is not an HTTP version: expected HTTP/1.0, HTTP/1.1, HTTP/2 or HTTP/3")
        }
        guard parts.count >= 2, !parts[1].isEmpty else {
            throw .malformed(file: file, line: number, reason: "the status line \"\(line.prefix(60))\" has no status code after one space")
        }
        let digits = parts[1]
        guard digits.utf8.count == 3, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let code = Int(digits), (100...599).contains(code)
        else {
            throw .malformed(file: file, line: number, reason: "the status code \"\(digits.prefix(20))\" is not three digits in 100...599")
        }
        return code
    }

    /// `Name: value` (RFC 9110 §5.1, RFC 9112 §5): a token name, no space before the colon,
    /// the value trimmed. A line that starts with a space would continue the previous one
    /// (obsolete folding), which RFC 9112 forbids.
    static func parseHeader(_ line: String, file: String, line number: Int) throws(FixtureError) -> (String, String) {
        if line.first == " " || line.first == "\t" {
            throw .malformed(
                file: file, line: number,
                reason: "the line starts with whitespace: folded header lines (obs-fold) are "
                    + "not allowed; put the whole value on the header's own line")
        }
        guard let colon = line.firstIndex(of: ":"), colon == line.startIndex || String(line.prefix(1)).isHTTPToken else {
            throw .malformed(
                file: file, line: number,
                reason: "\"\(line.prefix(60))\" is not a header line (\"Name: value\"); "
                    + "if the body starts here, put one blank line before it")
        }
        let name = String(line[..<colon])
        guard name.isHTTPToken else {
            throw .malformed(
                file: file, line: number,
                reason: name.isEmpty
                    ? "the header line \"\(line.prefix(60))\" has no \"Name:\" before its colon"
                    : "the header name \"\(name.prefix(60))\" is not a token (no spaces or separators, none before the colon)")
        }
        return (name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
}
