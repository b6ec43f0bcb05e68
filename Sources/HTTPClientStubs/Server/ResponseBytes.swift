import Foundation
import HTTPClient

/// The bytes of the answers a ``StubServer`` writes.
enum ResponseBytes {
    /// The header lines the server writes itself, dropped from a stub's list.
    private static let framingFields: Set<String> = ["content-length", "transfer-encoding", "connection", "keep-alive"]

    static let textFields = HTTPHeaders(["Content-Type": "text/plain; charset=utf-8"])

    /// A head and a body of known length.
    static func whole(status: Int, fields: HTTPHeaders, body: Data) -> Data {
        var bytes = head(status: status, fields: fields, length: body.count)
        bytes.append(body)
        return bytes
    }

    /// A head alone: with `Content-Length` when `length` is given (a HEAD answer), without for
    /// statuses that have no body (1xx, 204, 304).
    static func head(status: Int, fields: HTTPHeaders, length: Int?) -> Data {
        var text = statusLine(status) + lines(of: fields)
        if let length {
            text += "Content-Length: \(length)\r\n"
        }
        return Data((text + "\r\n").utf8)
    }

    /// A head whose body follows in chunks.
    static func chunkedHead(status: Int, fields: HTTPHeaders) -> Data {
        Data((statusLine(status) + lines(of: fields) + "Transfer-Encoding: chunked\r\n\r\n").utf8)
    }

    /// One chunk of a chunked body (never empty: an empty chunk ends the body).
    static func chunk(_ data: Data) -> Data {
        var bytes = Data((String(data.count, radix: 16) + "\r\n").utf8)
        bytes.append(data)
        bytes.append(contentsOf: [13, 10])
        return bytes
    }

    static let lastChunk = Data("0\r\n\r\n".utf8)

    /// A canned error answer that closes the connection, its reason as the body.
    static func error(status: Int, reason: String) -> Data {
        var fields = textFields
        fields.add(name: "Connection", value: "close")
        var bytes = Data((statusLine(status) + lines(of: fields)).utf8)
        let body = Data("\(status) \(HTTPResponseWriter.reasonPhrase(for: status)): \(reason).\n".utf8)
        bytes.append(Data("Content-Length: \(body.count)\r\n\r\n".utf8))
        bytes.append(body)
        return bytes
    }

    /// The header lines of a response that kept no list of its own (one field per name).
    static func fields(of response: HTTPURLResponse) -> HTTPHeaders {
        var fields = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            fields.add(name: "\(name)", value: "\(value)")
        }
        return fields
    }

    /// Whether the stub's own `Connection` header closes the connection.
    static func asksToClose(_ fields: HTTPHeaders) -> Bool {
        fields.values(for: "Connection").contains { $0.lowercased().contains("close") }
    }

    private static func statusLine(_ status: Int) -> String {
        "HTTP/1.1 \(status) \(HTTPResponseWriter.reasonPhrase(for: status))\r\n"
    }

    /// One line per field, framing fields left out; CR and LF in a stub's name or value are
    /// turned into spaces, so no stub can split the answer into two.
    private static func lines(of fields: HTTPHeaders) -> String {
        var text = ""
        for field in fields where !framingFields.contains(field.name.lowercased()) {
            text += "\(clean(field.name)): \(clean(field.value))\r\n"
        }
        return text
    }

    private static func clean(_ text: String) -> String {
        guard text.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else { return text }
        return String(text.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" ? " " : $0 })
    }
}
