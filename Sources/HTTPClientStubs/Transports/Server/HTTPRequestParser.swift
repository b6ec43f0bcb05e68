import Foundation
import HTTPClient

/// Reads HTTP/1.1 requests (RFC 9112) from the bytes of one connection, in whatever pieces they
/// arrive: ``append(_:)`` what was received, then call ``next()`` until it returns nil.
///
/// Strict where leniency lets two readers disagree about where a request ends (request
/// smuggling): every line must end in CRLF (a bare LF or CR is a 400), header folding and
/// whitespace before a colon are rejected, `Content-Length` with `Transfer-Encoding` is
/// rejected, and so are `Content-Length` values that differ, `Transfer-Encoding` on HTTP/1.0
/// and chunk extensions that are not `;name[=value]`. Each byte is looked at once, so
/// a head sent one byte at a time costs what a head sent at once does. After an error every
/// call to ``next()`` throws it again: the server answers it and closes the connection.
package struct HTTPRequestParser: Sendable {
    /// What the parser has read.
    package enum Event: Sendable, Hashable {
        /// A request's head is complete; its body (if any) follows. A server answers
        /// `100 Continue` here when ``HTTPRequestHead/expectsContinue``.
        case head(HTTPRequestHead)
        /// The request is complete, body included; the bytes after it belong to the next request.
        case request(ParsedRequest)
    }

    private enum State: Sendable {
        case requestLine
        case headerLines
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailerLines
    }

    /// The limits this parser enforces.
    package let limits: HTTPServerLimits
    private var buffer: [UInt8] = []
    /// The first byte not yet consumed.
    private var position = 0
    /// Where the search for the end of the current line resumes, so no byte is scanned twice.
    private var scanned = 0
    private var state = State.requestLine
    private var failure: HTTPRequestParseError?
    /// Bytes of the current head (or of the trailers) consumed so far, and its lines.
    private var headBytes = 0
    private var lineCount = 0
    private var requestLine: (method: String, target: String, version: HTTPRequestHead.Version)?
    private var fields: [HTTPHeaders.Field] = []
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var bodyIsAnnounced = false
    /// How many bytes the search for line ends has looked at: what the tests read to check that
    /// no byte is scanned twice, however the input is split.
    private(set) var bytesExamined = 0

    /// A parser for one connection.
    /// - Parameter limits: the sizes past which a request is refused (431 or 413).
    package init(limits: HTTPServerLimits = HTTPServerLimits()) {
        self.limits = limits
    }

    /// Adds bytes received from the connection (an `UnsafeRawBufferPointer` over a read buffer, an array).
    /// - Parameter bytes: the next bytes, in any split.
    package mutating func append(_ bytes: some Collection<UInt8>) {
        guard failure == nil else { return }
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// The next event the bytes so far complete, or nil until more bytes arrive.
    /// - Throws: ``HTTPRequestParseError`` with the status to answer; then the connection must close.
    package mutating func next() throws(HTTPRequestParseError) -> Event? {
        if let failure { throw failure }
        do {
            return try step()
        } catch {
            failure = error
            buffer = []
            position = 0
            scanned = 0
            throw error
        }
    }

    /// Whether part of a request has arrived and the rest has not (a connection closing now cuts a
    /// request short; a server waits for the rest only as long as its read timeout). False after an error.
    package var isInsideRequest: Bool {
        if failure != nil { return false }
        if case .requestLine = state { return position < buffer.count }
        return true
    }

    /// Bytes appended and not yet consumed: a request's head (or pipelined requests) waiting to
    /// be parsed. A server reads no more while this is a head's limit or more.
    package var unreadByteCount: Int { buffer.count - position }

    /// Whether part of a request head (request line or header lines) has arrived and the rest
    /// has not: the time a head takes to arrive whole is bounded apart from its body's.
    package var isReadingHead: Bool {
        guard failure == nil else { return false }
        switch state {
        case .requestLine: return position < buffer.count
        case .headerLines: return true
        default: return false
        }
    }

    // MARK: The state machine

    private mutating func step() throws(HTTPRequestParseError) -> Event? {
        while true {
            switch state {
            case .requestLine:
                guard let line = try nextLine() else { return nil }
                // RFC 9112 section 2.2: empty lines before a request line are ignored (they still count to the head's limit).
                if line.isEmpty { continue }
                requestLine = try Self.parseRequestLine(line)
                state = .headerLines
            case .headerLines:
                guard let line = try nextLine() else { return nil }
                if line.isEmpty { return .head(try finishHead()) }
                fields.append(try field(in: line))
            case .fixedBody(let remaining):
                if remaining == 0 { return .request(finishRequest()) }
                let taken = takeBody(upTo: remaining)
                if taken == 0 { return nil }
                state = .fixedBody(remaining: remaining - taken)
            case .chunkSize:
                guard let line = try nextLine() else { return nil }
                let size = try chunkSize(in: line)
                headBytes = 0
                lineCount = 0
                state = size == 0 ? .trailerLines : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let taken = takeBody(upTo: remaining)
                if taken == 0 { return nil }
                state = remaining == taken ? .chunkDataEnd : .chunkData(remaining: remaining - taken)
            case .chunkDataEnd:
                guard buffer.count - position >= 2 else { return nil }
                guard buffer[position] == .cr, buffer[position + 1] == .lf else {
                    throw .malformed("a chunk's data is longer than its size says (no CRLF after it)")
                }
                position += 2
                scanned = position
                state = .chunkSize
            case .trailerLines:
                guard let line = try nextLine() else { return nil }
                if line.isEmpty { return .request(finishRequest()) }
                _ = try field(in: line)  // read and dropped: trailers are not merged into the head
            }
        }
    }

    /// The next line without its CRLF, or nil until it is complete. Counts it to the head's size.
    private mutating func nextLine() throws(HTTPRequestParseError) -> ArraySlice<UInt8>? {
        let end = buffer[scanned...].firstIndex(of: .lf)
        bytesExamined += (end.map { $0 + 1 } ?? buffer.count) - scanned
        guard let end else {
            scanned = buffer.count
            if headBytes + (buffer.count - position) > limits.maximumHeadBytes { throw headTooLarge() }
            return nil
        }
        headBytes += end + 1 - position
        if headBytes > limits.maximumHeadBytes { throw headTooLarge() }
        guard end > position, buffer[end - 1] == .cr else {
            throw .malformed("a line ends in a bare LF (every line of a request ends in CRLF)")
        }
        let line = buffer[position..<(end - 1)]
        if line.contains(.cr) { throw .malformed("a line holds a bare CR") }
        position = end + 1
        scanned = position
        return line
    }

    /// Drops consumed bytes once they are most of the buffer, so a long-lived connection's buffer
    /// stays the size of what is unread, and each byte is moved a bounded number of times.
    private mutating func compact() {
        if position == buffer.count {
            buffer.removeAll(keepingCapacity: true)
        } else if position >= 4096, position * 2 >= buffer.count {
            buffer.removeFirst(position)
        } else {
            return
        }
        scanned -= position
        position = 0
    }

    private func headTooLarge() -> HTTPRequestParseError {
        if case .trailerLines = state {
            return HTTPRequestParseError(431, "the trailers pass the limit of \(limits.maximumHeadBytes) bytes")
        }
        if case .chunkSize = state {
            return .malformed("a chunk-size line passes \(limits.maximumHeadBytes) bytes")
        }
        // RFC 9112 section 3: a target longer than the server reads is a 414. The line's first
        // space is where the method ends and the target starts: a space within the limit means
        // the method is whole, and what passes the limit is the target.
        if case .requestLine = state, let space = buffer[position...].prefix(while: { $0 != .lf }).firstIndex(of: .space),
            space - position < limits.maximumHeadBytes
        {
            return HTTPRequestParseError(414, "the request line passes the limit of \(limits.maximumHeadBytes) bytes")
        }
        return HTTPRequestParseError(431, "the request head passes the limit of \(limits.maximumHeadBytes) bytes")
    }

    private mutating func field(in line: ArraySlice<UInt8>) throws(HTTPRequestParseError) -> HTTPHeaders.Field {
        lineCount += 1
        if lineCount > limits.maximumHeaderCount {
            throw HTTPRequestParseError(431, "more than \(limits.maximumHeaderCount) header lines")
        }
        return try Self.parseField(line)
    }

    private mutating func takeBody(upTo remaining: Int) -> Int {
        let taken = min(remaining, buffer.count - position)
        body.append(contentsOf: buffer[position..<(position + taken)])
        position += taken
        scanned = position
        return taken
    }

    private mutating func finishHead() throws(HTTPRequestParseError) -> HTTPRequestHead {
        guard let requestLine else { throw .malformed("a head without a request line") }
        let head = HTTPRequestHead(
            method: requestLine.method, target: requestLine.target, version: requestLine.version, headers: fields)
        let framing = try Self.framing(of: head, limits: limits)
        self.head = head
        headBytes = 0
        lineCount = 0
        switch framing {
        case .none: state = .fixedBody(remaining: 0)
        case .length(let length):
            bodyIsAnnounced = true
            state = .fixedBody(remaining: length)
        case .chunked:
            bodyIsAnnounced = true
            state = .chunkSize
        }
        return head
    }

    private mutating func finishRequest() -> ParsedRequest {
        let request = ParsedRequest(
            head: head ?? HTTPRequestHead(method: "", target: "", version: .http11, headers: []),
            body: bodyIsAnnounced ? Data(body) : nil)
        state = .requestLine
        requestLine = nil
        fields = []
        head = nil
        body = []
        bodyIsAnnounced = false
        headBytes = 0
        lineCount = 0
        return request
    }

    private mutating func chunkSize(in line: ArraySlice<UInt8>) throws(HTTPRequestParseError) -> Int {
        let allowed = limits.maximumBodyBytes - body.count
        let tooLarge = HTTPRequestParseError(413, "a chunk's size passes the body limit of \(limits.maximumBodyBytes) bytes")
        var size = 0
        var digits = 0
        var index = line.startIndex
        while index < line.endIndex, let digit = Self.hexValue(line[index]) {
            // Checked before it could overflow: a size past the body limit is refused whatever its digits.
            guard size <= (allowed - digit) / 16 else { throw tooLarge }
            size = size * 16 + digit
            digits += 1
            index += 1
        }
        if size > allowed { throw tooLarge }
        guard digits > 0 else { throw .malformed("a chunk size is not hexadecimal: \(Self.printable(line))") }
        // What may follow the size: chunk extensions, read and ignored.
        let rest = line[index...]
        if rest.drop(while: { $0 == .space || $0 == .tab }).first != UInt8(ascii: ";"), !rest.isEmpty {
            throw .malformed("a chunk size is not hexadecimal: \(Self.printable(line))")
        }
        guard Self.isChunkExtensionList(rest) else {
            throw .malformed("a chunk extension is not `;name` or `;name=value`: \(Self.printable(rest))")
        }
        return size
    }
}
