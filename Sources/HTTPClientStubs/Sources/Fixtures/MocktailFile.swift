import Foundation
import HTTPClient

/// One Mocktail (`.tail`) file: one canned answer and the method and URL patterns of the
/// requests it is for. The format's rules are told at ``MocktailFiles``, the public face of
/// these files.
struct MocktailFile: Sendable {
    /// Where the file is, to record as the answer's source.
    let url: URL
    /// Line 1.
    let methodPattern: Pattern
    /// Line 2.
    let urlPattern: Pattern
    /// The answer: status, headers (Content-Type first) and the decoded body.
    let answer: HTTPResponseFile

    /// Reads and parses the file at `url`.
    init(contentsOf url: URL) throws(FixtureError) {
        // A FIFO, a device (`/dev/zero`) or a directory is refused before it is opened.
        switch FileKind.contentsOfRegularFile(at: url) {
        case .success(let data): try self.init(parsing: data, url: url)
        case .failure(let refusal): throw .unreadable(file: url.path, reason: refusal.reason)
        }
    }

    /// Parses `data`; `url` names the file in errors and in the recorded answer source.
    init(parsing data: Data, url: URL) throws(FixtureError) {
        let file = url.path
        var reader = LineReader(data: data)
        func required(_ what: String, _ example: String) throws(FixtureError) -> String {
            guard let line = try reader.nextHeadLine(file: file) else {
                if reader.sawBlankLine {
                    throw .malformed(
                        file: file, line: reader.lineNumber,
                        reason: "the line is blank where the \(what) belongs (\(example)): the blank line that ends "
                            + "the head comes after the Content-Type and the headers")
                }
                throw .malformed(
                    file: file, line: reader.lineNumber + 1,
                    reason: "the file ends before its \(what) (\(example)): a Mocktail file starts with four lines, "
                        + "a method pattern, a URL pattern, a status and a Content-Type")
            }
            return line
        }
        methodPattern = try Pattern(required("method pattern", "such as GET|POST"), named: "method", file: file, line: 1)
        urlPattern = try Pattern(required("URL pattern", "such as /users/[0-9]+$"), named: "URL", file: file, line: 2)
        let statusCode = try Self.status(required("status", "such as 200"), file: file, line: 3)

        var headers: HTTPHeaders = [:]
        let fourth = try required("Content-Type", "such as application/json")
        if fourth.contains(":") {
            let (name, value) = try HTTPResponseFile.parseHeader(fourth, file: file, line: 4)
            headers.add(name: name, value: value)
        } else {
            let type = fourth.trimmingCharacters(in: .whitespaces)
            guard !type.isEmpty else {
                throw .malformed(file: file, line: 4, reason: "the Content-Type line is empty: write one such as text/plain")
            }
            headers.add(name: "Content-Type", value: type)
        }
        while let line = try reader.nextHeadLine(file: file) {
            let (name, value) = try HTTPResponseFile.parseHeader(line, file: file, line: reader.lineNumber)
            // OHHTTPStubs kept the last of two; which one the author meant is not for us to guess.
            if name.caseInsensitiveCompare("Content-Type") == .orderedSame, headers["Content-Type"] != nil {
                throw .malformed(
                    file: file, line: reader.lineNumber,
                    reason: "a second Content-Type (an earlier line gives one already): keep one of the two")
            }
            headers.add(name: name, value: value)
        }

        let bodyLine = reader.lineNumber + 1
        let rawBody = Data(data[reader.offset...])
        var body = rawBody
        if let type = headers["Content-Type"], let plainType = Self.typeWithoutBase64Marker(type) {
            headers["Content-Type"] = plainType
            body = try Self.decodeBase64(rawBody, file: file, firstLine: bodyLine)
        }
        self.url = url
        answer = HTTPResponseFile(statusCode: statusCode, headers: headers, body: body)
    }

    /// Why `request` is not for this file, or `nil` when it is.
    func mismatch(for request: RecordedRequest) -> String? {
        let method = request.method.rawValue
        if let miss = methodPattern.mismatch(method) { return "the method \(method) \(miss)" }
        if let miss = urlPattern.mismatch(request.url.absoluteString) { return "the URL \(miss)" }
        return nil
    }

    // MARK: Parts

    /// Line 3: digits only, in 100...599 (OHHTTPStubs reads any text as a number, so a typo
    /// served status 0).
    private static func status(_ line: String, file: String, line number: Int) throws(FixtureError) -> Int {
        let digits = line.trimmingCharacters(in: .whitespaces)
        guard digits.utf8.count == 3, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let code = Int(digits), (100...599).contains(code)
        else {
            throw .malformed(file: file, line: number, reason: "the status \"\(line.prefix(20))\" is not three digits in 100...599")
        }
        return code
    }

    /// `image/png;base64` → `image/png`; `nil` when the type has no base64 marker.
    private static func typeWithoutBase64Marker(_ type: String) -> String? {
        guard let semicolon = type.lastIndex(of: ";"),
            type[type.index(after: semicolon)...].trimmingCharacters(in: .whitespaces).lowercased() == "base64"
        else { return nil }
        return type[..<semicolon].trimmingCharacters(in: .whitespaces)
    }

    /// Decodes a base64 body, ignoring the whitespace that wraps it; a stray character is
    /// reported on its own line.
    private static func decodeBase64(_ body: Data, file: String, firstLine: Int) throws(FixtureError) -> Data {
        var symbols = Data()
        symbols.reserveCapacity(body.count)
        var line = firstLine
        for byte in body {
            switch byte {
            case UInt8(ascii: "\n"): line += 1
            case UInt8(ascii: "\r"), UInt8(ascii: " "), UInt8(ascii: "\t"): continue
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="):
                symbols.append(byte)
            default:
                throw .malformed(
                    file: file, line: line,
                    reason: "the body is marked base64 (the Content-Type ends in ;base64) but holds the byte 0x"
                        + String(byte, radix: 16, uppercase: true) + ", which base64 does not use")
            }
        }
        guard let decoded = Data(base64Encoded: symbols) else {
            throw .malformed(
                file: file, line: firstLine,
                reason: "the base64 body does not decode: its \(symbols.count) characters are not whole groups of four, "
                    + "or '=' padding is not at the end")
        }
        return decoded
    }
}

// MARK: - Lines

extension MocktailFile {
    /// Reads the head line by line (LF or CRLF) up to the first blank line; the body is never
    /// decoded as text.
    struct LineReader {
        let data: Data
        /// Where the next line starts (after the head: where the body starts).
        private(set) var offset: Data.Index
        /// The number of the line last read (1-based), 0 before the first.
        private(set) var lineNumber = 0
        /// Whether the head ended at a blank line (rather than at the end of the file).
        private(set) var sawBlankLine = false
        private var headEnded = false

        init(data: Data) {
            self.data = data
            offset = data.startIndex
        }

        /// The next line of the head, or `nil` at the blank line or the end of the file.
        mutating func nextHeadLine(file: String) throws(FixtureError) -> String? {
            guard !headEnded, offset < data.endIndex else {
                headEnded = true
                return nil
            }
            let lineEnd = data[offset...].firstIndex(of: UInt8(ascii: "\n")) ?? data.endIndex
            var contentEnd = lineEnd
            if contentEnd > offset, data[contentEnd - 1] == UInt8(ascii: "\r") { contentEnd -= 1 }
            let content = data[offset..<contentEnd]
            offset = lineEnd < data.endIndex ? lineEnd + 1 : data.endIndex
            lineNumber += 1
            if content.isEmpty {
                headEnded = true
                sawBlankLine = true
                return nil
            }
            guard let line = String(data: content, encoding: .utf8) else {
                throw .malformed(file: file, line: lineNumber, reason: "the line is not UTF-8 text")
            }
            return line
        }
    }
}
