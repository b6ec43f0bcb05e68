import Foundation
import HTTPClient

/// Which recorded exchange answers a request: method and URL always (query order ignored,
/// redacted values compared redacted); optionally the body and chosen headers.
public struct CassetteMatching: Sendable {
    public var body: Bool
    public var headers: [String]

    public init(body: Bool = false, headers: [String] = []) {
        self.body = body
        self.headers = headers
    }

    /// Method and URL: the default.
    public static let methodAndURL = CassetteMatching()
}
