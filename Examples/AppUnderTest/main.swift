// An app as a UI test sees it: a separate process that talks to its API at the address it is
// given at launch. A test starts a `StubServer`, launches this app with `API_BASE_URL` set to the
// server's `baseURL`, changes answers or holds one while the app waits, and verifies what the app
// sent (Tests/HTTPClientMocksTests/Files/AppUnderTestTests.swift). Only HTTPClient is linked: the
// app knows nothing of stubs.
//
//     API_BASE_URL=http://127.0.0.1:8080 swift run AppUnderTest
import Foundation
import HTTPClient

struct User: Codable {
    let id: Int?
    let name: String
}

/// Prints `line` at once: the test reads what the app shows as it happens.
func show(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

guard let base = ProcessInfo.processInfo.environment["API_BASE_URL"].flatMap(URL.init(string:)) else {
    FileHandle.standardError.write(Data("AppUnderTest: set API_BASE_URL to the API's address (http://127.0.0.1:PORT)\n".utf8))
    exit(2)
}
let client = HTTPClient(session: URLSession(configuration: .ephemeral), baseURL: base)
do {
    show("loading user 1")
    let user = try await client.send(HTTPClient.Request<User>.get("users/1")).value
    show("user: \(user.name)")
    let created = try await client.send(HTTPClient.Request<User>.post("users", body: .json(User(id: nil, name: "Grace")))).value
    show("created: \(created.name) (\(created.id.map(String.init) ?? "no id"))")
} catch {
    show("error: \(error)")
    exit(1)
}
