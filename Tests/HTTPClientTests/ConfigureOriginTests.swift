import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// A client's credentials stay on the origin a request was built for, even when the request's
/// `configure` closure sends it elsewhere; what the closure sets itself is sent.
@Suite("Configure and the client's credentials")
struct ConfigureOriginTests {
    let session = MockURLSession()

    func client(headers: HTTPHeaders = ["Authorization": "Bearer client-token"], interceptors: [any Interceptor] = []) -> HTTPClient {
        HTTPClient(session: session, baseURL: url("https://api.example.com"), headers: headers, interceptors: interceptors)
    }

    func sent(_ client: HTTPClient, configure: @escaping @Sendable (inout URLRequest) -> Void) async throws -> RecordedRequest {
        session.enqueue(.text("ok"))
        var request = HTTPClient.Request<Data>.get("me")
        request.configure = configure
        _ = try await client.send(request)
        return try #require(session.requests.last)
    }

    @Test func aConfigureThatMovesTheRequestToAnotherHostDropsTheClientsAuthorization() async throws {
        let request = try await sent(client()) { $0.url = URL(string: "https://other.example.net/me") }
        #expect(request.url.host == "other.example.net")
        #expect(request.headers["Authorization"] == nil)
    }

    @Test func aConfigureThatMovesTheRequestToAnotherPortDropsTheClientsCookie() async throws {
        let request = try await sent(client(headers: ["Cookie": "sid=client"])) {
            $0.url = URL(string: "https://api.example.com:8443/me")
        }
        #expect(request.headers["Cookie"] == nil)
    }

    @Test func anInterceptorCannotAddItsTokenToARequestMovedToAnotherHost() async throws {
        let bearer = BearerTokenInterceptor(token: "interceptor-token") { "refreshed" }
        let request = try await sent(client(headers: [:], interceptors: [bearer])) {
            $0.url = URL(string: "https://other.example.net/me")
        }
        #expect(request.headers["Authorization"] == nil)
    }

    @Test func aConfigureThatStaysOnTheOriginKeepsTheClientsCredentials() async throws {
        let bearer = BearerTokenInterceptor(token: "interceptor-token") { "refreshed" }
        let request = try await sent(client(headers: ["Cookie": "sid=client"], interceptors: [bearer])) {
            $0.url = URL(string: "https://API.example.com:443/v2/me")
        }
        #expect(request.headers["Authorization"] == "Bearer interceptor-token")
        #expect(request.headers["Cookie"] == "sid=client")
    }

    @Test func aCredentialTheConfigureSetsItselfIsSentToTheOtherHost() async throws {
        let bearer = BearerTokenInterceptor(token: "interceptor-token") { "refreshed" }
        let request = try await sent(client(interceptors: [bearer])) {
            $0.url = URL(string: "https://other.example.net/me")
            $0.setValue("Bearer for-the-other-host", forHTTPHeaderField: "Authorization")
        }
        #expect(request.headers["Authorization"] == "Bearer for-the-other-host")
    }

    @Test func theCompletionStyleAlsoDropsTheClientsAuthorizationOnAnotherHost() throws {
        session.enqueue(.text("ok"))
        var request = HTTPClient.Request<Data>.get("me")
        request.configure = { $0.url = URL(string: "https://other.example.net/me") }
        let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()
        client().send(request, completion: recorder.record)
        _ = try #require(recorder.value).get()
        #expect(session.requests.last?.headers["Authorization"] == nil)
    }

    @Test func aConfigureThatMovesTheRequestDropsEveryHeaderTheRedactionHides() async throws {
        let headers: HTTPHeaders = ["X-Api-Key": "k3y-value", "X-Auth-Token": "t0ken-value", "Accept-Language": "fr"]
        let request = try await sent(client(headers: headers)) { $0.url = URL(string: "https://other.example.net/me") }
        #expect(request.headers["X-Api-Key"] == nil)
        #expect(request.headers["X-Auth-Token"] == nil)
        #expect(request.headers["Accept-Language"] == "fr")
    }

    @Test func aNameAddedToTheClientsRedactionIsDroppedOnAnotherOriginToo() async throws {
        var client = client(headers: ["X-Tenant": "acme", "Accept-Language": "fr"])
        client.redaction = .standard.name("X-Tenant")
        let request = try await sent(client) { $0.url = URL(string: "https://other.example.net/me") }
        #expect(request.headers["X-Tenant"] == nil)
        #expect(request.headers["Accept-Language"] == "fr")
    }

    @Test func switchingRedactionOffStillKeepsTheStandardCredentialsHome() async throws {
        var client = client(headers: ["Authorization": "Bearer client-token", "X-Api-Key": "k3y-value"])
        client.redaction = .none
        let request = try await sent(client) { $0.url = URL(string: "https://other.example.net/me") }
        #expect(request.headers["Authorization"] == nil)
        #expect(request.headers["X-Api-Key"] == nil)
    }

    @Test func anInterceptorCannotAddAnAPIKeyToARequestMovedToAnotherHost() async throws {
        struct APIKey: Interceptor {
            func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest {
                var request = request
                request.setValue("k3y-value", forHTTPHeaderField: "X-Api-Key")
                return request
            }
        }
        let request = try await sent(client(headers: [:], interceptors: [APIKey()])) {
            $0.url = URL(string: "https://other.example.net/me")
        }
        #expect(request.headers["X-Api-Key"] == nil)
    }
}
