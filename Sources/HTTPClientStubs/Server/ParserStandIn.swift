import Foundation
import HTTPClient

// A stand-in for the "parser" branch's HTTPRequestParser, in the agreed shape, so the server
// can be built and tested before it lands. Removed when i26-parser is merged.

struct HTTPServerLimits: Sendable {
    var maximumHeadBytes = 64 * 1024
    var maximumHeaderCount = 256
    var maximumBodyBytes = 64 * 1024 * 1024
}

struct HTTPRequestParseError: Error, Sendable {
    let status: Int
    let reason: String
}

struct HTTPRequestHead: Sendable {
    var method: String
    var target: String
    var isHTTP11: Bool
    var headers: [HTTPHeaders.Field]

    func values(of name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    var keepsAlive: Bool {
        let options = values(of: "Connection").joined(separator: ",").lowercased()
        if options.contains("close") { return false }
        return isHTTP11 || options.contains("keep-alive")
    }

    var expectsContinue: Bool { isHTTP11 && values(of: "Expect").contains { $0.lowercased() == "100-continue" } }
}

struct ParsedRequest: Sendable {
    var head: HTTPRequestHead
    var body: Data?

    func urlRequest(base: URL) throws(HTTPRequestParseError) -> URLRequest {
        let text = head.target.hasPrefix("/") ? base.absoluteString + head.target : head.target
        guard let url = URL(string: text), url.host != nil else {
            throw HTTPRequestParseError(status: 400, reason: "the target \(head.target) does not make a URL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = head.method
        for field in head.headers { request.addValue(field.value, forHTTPHeaderField: field.name) }
        request.httpBody = body
        return request
    }
}

struct HTTPRequestParser {
    enum Event {
        case head(HTTPRequestHead)
        case request(ParsedRequest)
    }

    let limits: HTTPServerLimits
    private var buffer: [UInt8] = []
    private var head: HTTPRequestHead?
    private var headEnd = 0

    init(limits: HTTPServerLimits) {
        self.limits = limits
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
    }

    mutating func next() throws(HTTPRequestParseError) -> Event? {
        if head == nil {
            guard let end = find([13, 10, 13, 10], from: 0) else {
                if buffer.count > limits.maximumHeadBytes { throw HTTPRequestParseError(status: 431, reason: "the head is too large") }
                return nil
            }
            let lines = String(decoding: buffer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
            let parts = lines[0].split(separator: " ")
            guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else {
                throw HTTPRequestParseError(status: 400, reason: "the request line is malformed")
            }
            var fields: [HTTPHeaders.Field] = []
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else {
                    throw HTTPRequestParseError(status: 400, reason: "a header line has no colon")
                }
                fields.append(
                    HTTPHeaders.Field(
                        name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
            let parsed = HTTPRequestHead(
                method: String(parts[0]), target: String(parts[1]), isHTTP11: parts[2] == "HTTP/1.1", headers: fields)
            head = parsed
            headEnd = end + 4
            return .head(parsed)
        }
        guard let head else { return nil }
        if head.values(of: "Transfer-Encoding").contains(where: { $0.lowercased().contains("chunked") }) {
            var body = Data()
            var position = headEnd
            while true {
                guard let lineEnd = find([13, 10], from: position) else { return nil }
                let sizeText = String(decoding: buffer[position..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                    throw HTTPRequestParseError(status: 400, reason: "a chunk size is not hexadecimal")
                }
                if size == 0 {
                    guard let end = find([13, 10], from: lineEnd + 2) else { return nil }
                    return finish(head, body: body, end: end + 2)
                }
                guard buffer.count >= lineEnd + 2 + size + 2 else { return nil }
                body.append(contentsOf: buffer[(lineEnd + 2)..<(lineEnd + 2 + size)])
                position = lineEnd + 2 + size + 2
            }
        }
        let length = head.values(of: "Content-Length").first.flatMap { Int($0) }
        guard let length else { return finish(head, body: nil, end: headEnd) }
        guard length <= limits.maximumBodyBytes else { throw HTTPRequestParseError(status: 413, reason: "the body is too large") }
        guard buffer.count >= headEnd + length else { return nil }
        return finish(head, body: Data(buffer[headEnd..<(headEnd + length)]), end: headEnd + length)
    }

    private mutating func finish(_ head: HTTPRequestHead, body: Data?, end: Int) -> Event {
        buffer.removeFirst(end)
        self.head = nil
        return .request(ParsedRequest(head: head, body: body))
    }

    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard buffer.count >= start + needle.count else { return nil }
        var index = start
        while index + needle.count <= buffer.count {
            if buffer[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}

enum HTTPResponseWriter {
    static func reasonPhrase(for status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 408: "Request Timeout"
        case 413: "Content Too Large"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
