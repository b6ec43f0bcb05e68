import Foundation

extension HTTPClient {
    /// The body of a request. Bodies that imply a content type set `Content-Type` unless the
    /// request already has one.
    public enum Body: Sendable {
        /// Raw bytes, with an optional content type.
        case data(Data, contentType: String? = nil)
        /// A value encoded with the client's ``HTTPClient/encoder``; `Content-Type: application/json`.
        ///
        /// A nil optional (`.json(user)` with `user: User? = nil`) sends no body and no
        /// `Content-Type`, rather than the four bytes `null`; a server that wants them gets
        /// `.data(Data("null".utf8), contentType: "application/json")`.
        case json(any Encodable & Sendable)

        /// UTF-8 text; `Content-Type: text/plain; charset=utf-8` unless another is given.
        ///
        /// - Parameters:
        ///   - text: The text to send.
        ///   - contentType: The content type to declare.
        public static func text(_ text: String, contentType: String = "text/plain; charset=utf-8") -> Body {
            .data(Data(text.utf8), contentType: contentType)
        }
    }
}
