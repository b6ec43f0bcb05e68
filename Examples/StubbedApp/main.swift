// An app that serves stubbed answers the way README's "Stubbed answers from the environment"
// shows. It exists so CI can check what such an app links: `readelf -d` on this binary must not
// list a test framework (an iOS app that links XCTest fails to launch outside a test).
//
//     HTTPCLIENT_FIXTURES=Examples/Fixtures swift run StubbedApp
import Foundation
import HTTPClient
import HTTPClientStubs

func makeAppClient() throws -> HTTPClient {
    // HTTPCLIENT_FIXTURES or HTTPCLIENT_CASSETTE in the launch environment: canned answers.
    // Neither: URLSession.shared.
    HTTPClient(session: try StubEnvironment.session(), baseURL: URL(string: "https://api.example.com"))
}

struct User: Decodable {
    let id: Int
    let name: String
}

do {
    let client = try makeAppClient()
    let user = try await client.send(HTTPClient.Request<User>.get("users/1")).value
    print("user \(user.id): \(user.name)")
} catch {
    FileHandle.standardError.write(Data("StubbedApp: \(error)\n".utf8))
    exit(1)
}
