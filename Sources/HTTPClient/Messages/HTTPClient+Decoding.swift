import Foundation

extension HTTPClient {
    /// How a request's raw response becomes its value: set by the request's initializer (JSON
    /// for a `Decodable` value, the body itself for `Data`), applied once validation passed.
    struct Decoding<Value: Sendable>: Sendable {
        /// Whether the request asks for JSON (`Accept: application/json` unless it sets one).
        let acceptsJSON: Bool
        /// Turns the validated raw response into the value, with the client's decoder.
        let decode: @Sendable (Response<Data>, JSONDecoder) throws(HTTPClientError) -> Value
    }
}
