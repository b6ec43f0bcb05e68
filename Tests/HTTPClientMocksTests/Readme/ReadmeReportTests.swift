import Foundation
import HTTPClient
import HTTPClientMocks
@_spi(Engine) import HTTPClientStubs
import Testing

/// The unmatched-request report shown in the stubbing article is produced here;
/// ``ArticleMessagesTests`` fails if the article's copy differs from what the engine prints.
enum ReadmeReportTests {
    static func makeReport() throws -> String {
        let stubs = StubRegistry("UserServiceTests", reporting: .disabled)
        stubs.stub(.post, "/v2/users")
        stubs.stub(.get, "/v2/users/1")
        stubs.stub(.get, "/v2/users/{id}/avatar")
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/v2/users/2?fields=name")))
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("Bearer eyJhbGciOi", forHTTPHeaderField: "Authorization")
        guard case .unmatched(let error) = stubs.resolve(request) else { throw CancellationError() }
        return error.report.description
    }
}
