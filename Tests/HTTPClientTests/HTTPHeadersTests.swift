import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient

@Suite("HTTPHeaders")
struct HTTPHeadersTests {
    @Test func lookupIgnoresCase() {
        let headers: HTTPHeaders = ["Content-Type": "text/html", "ETAG": "x"]
        #expect(headers["content-type"] == "text/html")
        #expect(headers["etag"] == "x")
        #expect(headers["Missing"] == nil)
    }

    @Test func foldingForLookupLowersASCIICapitalsAndLeavesEveryOtherByte() {
        #expect("X-Request-ID".asciiLowercased == "x-request-id")
        // Non-ASCII letters keep their case (`lowercased()` would fold them), whole.
        #expect("X-ÜBER-Ä".asciiLowercased == "x-Über-Ä")
        #expect("already-lower".asciiLowercased == "already-lower")
        #expect("".asciiLowercased == "")
        // A substring (not contiguous from the start of its string) folds the same.
        #expect("Name: ABC".dropFirst(6).asciiLowercased == "abc")
    }

    @Test func repeatedFieldsAreKeptInOrderAndJoined() {
        var headers: HTTPHeaders = [:]
        headers.add(name: "Set-Cookie", value: "a=1")
        headers.add(name: "set-cookie", value: "b=2")
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        #expect(headers["Set-Cookie"] == "a=1, b=2")
        #expect(headers.count == 2)
        #expect(headers.names == ["Set-Cookie"])
    }

    @Test func settingRemovesEveryFieldOfThatNameAndAddsOneAsSpelledAtTheEnd() {
        var headers: HTTPHeaders = ["A": "1", "B": "2", "a": "3"]
        headers["a"] = "new"
        #expect(Array(headers).map(\.name) == ["B", "a"])
        #expect(headers["A"] == "new")
        headers["b"] = nil
        #expect(headers["B"] == nil)
    }

    @Test func equalityIgnoresNameCaseButNotValues() {
        #expect(HTTPHeaders(["X-A": "1"]) == HTTPHeaders(["x-a": "1"]))
        #expect(HTTPHeaders(["X-A": "1"]) != HTTPHeaders(["X-A": "2"]))
        #expect(Set([HTTPHeaders(["X-A": "1"]), HTTPHeaders(["x-a": "1"])]).count == 1)
    }

    @Test func caseInsensitiveComparisonOnlyFoldsLetters() {
        #expect("Content-Type".caseInsensitiveEquals("content-type"))
        #expect(!"a[".caseInsensitiveEquals("a{"))  // 0x5B and 0x7B differ only in bit 0x20
        #expect(!"ab".caseInsensitiveEquals("abc"))
    }

    @Test func methodsAreUpperCasedAndKnowIdempotency() {
        #expect(HTTPMethod(rawValue: "get") == .get)
        #expect(HTTPMethod.put.isIdempotent)
        #expect(!HTTPMethod.post.isIdempotent)
        #expect(!HTTPMethod.patch.isIdempotent)
    }

    /// A response's headers are read from the `HTTPURLResponse` only when asked for; read or
    /// given, they are the same headers: equal, hashed alike, and replaceable.
    @Test func aReceivedResponsesHeadersAreTheHeadersItCameWith() throws {
        let url = try #require(URL(string: "https://api.example.com/a"))
        let received = try #require(
            HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["X-Id": "7", "Content-Length": "2"]))
        let response = HTTPClient.Response(received, body: Data("ok".utf8))
        let byHand = HTTPClient.Response(
            statusCode: 200, headers: ["Content-Length": "2", "X-Id": "7"], body: Data("ok".utf8), url: url)
        #expect(response.headers["x-id"] == "7")
        #expect(response == byHand)
        #expect(response.hashValue == byHand.hashValue)
        #expect(response != HTTPClient.Response(statusCode: 200, headers: ["X-Id": "8"], body: Data("ok".utf8), url: url))

        var replaced = response
        replaced.headers["X-Id"] = "8"
        #expect(replaced.headers["X-Id"] == "8")
        #expect(response.headers["X-Id"] == "7")
    }

    /// A response read from many tasks at once reads its headers once and gives every reader
    /// the same (the ThreadSanitizer run of the suite checks the reading for races).
    @Test func aResponsesHeadersReadFromManyTasksAtOnceAreTheSame() async throws {
        let url = try #require(URL(string: "https://api.example.com/a"))
        let received = try #require(
            HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["X-Id": "7"]))
        let response = HTTPClient.Response(received, body: nil)
        let read = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<16 { group.addTask { response.headers["X-Id"] } }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(read == Array(repeating: "7", count: 16))
    }

    /// A request the client sends gets the headers `addValue` called for each would give it:
    /// values of one name (in any case) joined with commas, and a value with a line break or a
    /// NUL dropped (never sent as a second header line).
    @Test(arguments: [
        [("Accept", "application/json")],
        [("Accept", "text/html"), ("accept", "application/json"), ("X-Id", "7")],
        [("X-Tab", "a\tb"), ("X-Empty", ""), ("X-Spaces", " padded ")],
        [("X-Evil", "a\r\nX-Injected: 1"), ("Accept", "application/json")],
        [("X-Nul", "a\u{0}b"), ("X-Ok", "1")],
        [("X-Unicode", "é"), ("Bad Name", "1")],
    ])
    func aRequestGetsTheHeadersAddValueWouldGiveIt(_ fields: [(String, String)]) throws {
        let url = try #require(URL(string: "https://api.example.com/a"))
        var headers = HTTPHeaders()
        for (name, value) in fields { headers.add(name: name, value: value) }
        var expected = URLRequest(url: url)
        for (name, value) in fields { expected.addValue(value, forHTTPHeaderField: name) }
        let session = MockURLSession()
        session.enqueue(.status(200))
        let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()
        // The client's own headers: every field as given, repeated names too.
        HTTPClient(session: session, headers: headers).get(url: url, completion: recorder.record)
        let request = try #require(session.requests.last).urlRequest

        // Names compared folded: addValue re-capitalizes them on Linux, as HTTP allows.
        func folded(_ request: URLRequest) -> [String: String] {
            Dictionary(uniqueKeysWithValues: (request.allHTTPHeaderFields ?? [:]).map { ($0.key.lowercased(), $0.value) })
        }
        #expect(folded(request) == folded(expected))
        #if canImport(FoundationNetworking)
        // swift-corelibs-foundation drops such a value; the fast path never sets one itself.
        #expect(request.allHTTPHeaderFields?.values.contains { $0.contains("\r") || $0.contains("\n") } != true)
        #endif
    }
}
