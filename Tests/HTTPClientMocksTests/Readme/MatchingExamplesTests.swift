// The query, form and throttling examples of the StubbingAndVerification article, exactly as
// written there (ReadmeIsCompiledTests checks it line for line).

import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@Test func tellsABareQueryFlagFromAnEmptyOneAndMatchesAnExactForm() async throws {
    let stubs = StubRegistry()
    // `?debug` only: a `URLQueryItem` with no value is a bare name, `""` is `?debug=`.
    stubs.stub(.get, "/search").matching(.query([URLQueryItem(name: "debug", value: nil)]))
        .respond(.text("bare"))
    // These two items and no others, in any order; a dictionary's "" accepts `?page` and `?page=`.
    stubs.stub(.get, "/search").matching(.queryExactly(["q": "swift", "page": "2"]))
        .respond(.text("page 2"))
    // A form of exactly these fields; `remember` is sent bare (`user=ada&remember`).
    stubs.stub(.post, "/login")
        .matching(.formBodyExactly([URLQueryItem(name: "user", value: "ada"), URLQueryItem(name: "remember", value: nil)]))
        .respond(.status(204))
    let session = MockURLSession(stubs: stubs)

    let (bare, _) = try await session.data(for: URLRequest(url: try #require(URL(string: "https://api.example.com/search?debug"))))
    let (page, _) = try await session.data(for: URLRequest(url: try #require(URL(string: "https://api.example.com/search?page=2&q=swift"))))
    var login = URLRequest(url: try #require(URL(string: "https://api.example.com/login")))
    login.httpMethod = "POST"
    login.httpBody = Data("remember&user=ada".utf8)
    let (_, loggedIn) = try await session.data(for: login)

    #expect(String(decoding: bare, as: UTF8.self) == "bare")
    #expect(String(decoding: page, as: UTF8.self) == "page 2")
    #expect((loggedIn as? HTTPURLResponse)?.statusCode == 204)
}

@Test func aThrottledBodyArrivesInChunks() async throws {
    let stubs = StubRegistry()
    let photo = Data(repeating: 0xFF, count: 1_400)
    // GPRS, 7,000 bytes a second: a chunk of 700 bytes every tenth of a second.
    stubs.stub(.get, "/photo").respond(.status(200, body: photo).throttled(to: .gprs))
    let session = MockURLSession(stubs: stubs, simulatesLatency: true)

    let (chunks, _) = try await session.chunks(for: URLRequest(url: try #require(URL(string: "https://api.example.com/photo"))))
    var sizes: [Int] = []
    for try await chunk in chunks { sizes.append(chunk.count) }

    #expect(sizes == [700, 700])
}
