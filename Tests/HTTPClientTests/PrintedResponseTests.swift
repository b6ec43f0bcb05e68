import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// What `dump` and `Mirror(reflecting:)` show of a response or an error hides what their
/// descriptions hide.
@Suite("Responses and errors, reflected")
struct PrintedResponseTests {
    struct Token: Decodable, Sendable {
        var accessToken: String

        enum CodingKeys: String, CodingKey { case accessToken = "access_token" }
    }

    let secret = "t0ken-in-the-body"
    let session = MockURLSession()
    var client: HTTPClient { HTTPClient(session: session, baseURL: url("https://api.example.com")) }

    func dumped(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }

    @Test func dumpingADecodedResponseHidesTheTokenItsBodyAndValueHold() async throws {
        session.enqueue(.json(raw: #"{"access_token": "\#(secret)"}"#))
        let response = try await client.send(HTTPClient.Request<Token>.get("token"))
        #expect(response.value.accessToken == secret)
        #expect(!dumped(response).contains(secret), "\(dumped(response))")
    }

    @Test func aResponsesMirrorShowsItsBodyRedacted() async throws {
        session.enqueue(.json(raw: #"{"access_token": "\#(secret)"}"#))
        let response = try await client.send(HTTPClient.Request<Data>.get("token"))
        let body = Mirror(reflecting: response).children.first { $0.label == "body" }?.value as? String
        #expect(body?.contains(Redaction.placeholder) == true)
        #expect(body?.contains(secret) == false)
    }

    @Test func dumpingAnErrorHidesTheCredentialsOfItsURL() {
        let error = HTTPClientError.invalidURL("https://ada:pa55word@api.example.com/me?api_key=k3y-value", reason: "a test")
        let text = dumped(error)
        #expect(!text.contains("pa55word") && !text.contains("k3y-value"), "\(text)")
    }

    @Test func dumpingAStatusErrorHidesTheTokenInItsBody() async throws {
        session.enqueue(.json(raw: #"{"access_token": "\#(secret)"}"#, status: 500))
        let error = await #expect(throws: HTTPClientError.self) { try await client.send(HTTPClient.Request<Data>.get("token")) }
        let text = dumped(error as Any)
        #expect(!text.contains(secret), "\(text)")
    }
}
