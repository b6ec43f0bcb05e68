import Foundation

/// A `multipart/form-data` body (RFC 7578): text fields and files, built as a value.
///
/// ```swift
/// var form = MultipartForm()
/// form.addField(name: "title", value: "Holiday")
/// form.addFile(name: "photo", fileName: "beach.jpg", contentType: "image/jpeg", data: jpeg)
/// try await client.send(.post("photos", body: .multipart(form)))
/// ```
public struct MultipartForm: Sendable, Hashable {
    /// One part of the form.
    struct Part: Sendable, Hashable {
        /// The form field's name.
        var name: String
        /// The file name sent with the part, for file uploads.
        var fileName: String?
        /// The part's `Content-Type`, if it has one.
        var contentType: String?
        /// The part's content.
        var data: Data

        /// A part with this field name and content.
        init(name: String, fileName: String? = nil, contentType: String? = nil, data: Data) {
            self.name = name
            self.fileName = fileName
            self.contentType = contentType
            self.data = data
        }
    }

    /// The delimiter between parts; random by default so it cannot occur in the data by chance.
    /// Set once by ``init(boundary:)``; ``contentType`` names it.
    let boundary: String
    /// The parts, in the order they are sent.
    var parts: [Part] = []

    /// An empty form; add its parts with ``addField(name:value:)`` and
    /// ``addFile(name:fileName:contentType:data:)``.
    ///
    /// - Parameter boundary: The delimiter between parts; random by default.
    public init(boundary: String = "HTTPClient-\(UUID().uuidString)") {
        self.boundary = boundary
    }

    /// Adds a text field.
    public mutating func addField(name: String, value: String) {
        parts.append(Part(name: name, data: Data(value.utf8)))
    }

    /// Adds a file with its file name and content type.
    public mutating func addFile(name: String, fileName: String, contentType: String = "application/octet-stream", data: Data) {
        parts.append(Part(name: name, fileName: fileName, contentType: contentType, data: data))
    }

    /// `multipart/form-data; boundary=...`.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The encoded body: each part is `--boundary CRLF headers CRLF CRLF data CRLF`, and the body
    /// ends with `--boundary-- CRLF`. Sent with ``HTTPClient/Body/multipart(_:)``.
    func encoded() -> Data {
        var body = Data()
        for part in parts {
            var disposition = "Content-Disposition: form-data; name=\"\(Self.quoted(part.name))\""
            if let fileName = part.fileName { disposition += "; filename=\"\(Self.quoted(fileName))\"" }
            var head = "--\(boundary)\r\n\(disposition)\r\n"
            if let contentType = part.contentType { head += "Content-Type: \(contentType)\r\n" }
            head += "\r\n"
            body.append(Data(head.utf8))
            body.append(part.data)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return body
    }

    /// Names and file names go inside quotes: escape quotes, drop line breaks (RFC 7578 §4.2).
    private static func quoted(_ value: String) -> String {
        value.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }
}

extension HTTPClient.Body {
    /// An `application/x-www-form-urlencoded` body from fields in order (repeated names kept).
    public static func form(_ fields: [URLQueryItem]) -> HTTPClient.Body {
        let encoded = fields.map { field in
            let name = URLBuilder.percentEncode(field.name, allowing: URLBuilder.isUnreserved)
            return field.value.map { name + "=" + URLBuilder.percentEncode($0, allowing: URLBuilder.isUnreserved) } ?? name
        }.joined(separator: "&")
        return .data(Data(encoded.utf8), contentType: "application/x-www-form-urlencoded")
    }

    /// An `application/x-www-form-urlencoded` body; fields sorted by name for a stable body.
    public static func form(_ fields: [String: String]) -> HTTPClient.Body {
        form(fields.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) })
    }

    /// A `multipart/form-data` body.
    public static func multipart(_ form: MultipartForm) -> HTTPClient.Body {
        .data(form.encoded(), contentType: form.contentType)
    }
}
