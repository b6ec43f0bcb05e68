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
    /// values of one name (in any case) joined with commas.
    @Test(arguments: [
        [("Accept", "application/json")],
        [("Accept", "text/html"), ("accept", "application/json"), ("X-Id", "7")],
        [("X-Tab", "a\tb"), ("X-Empty", ""), ("X-Spaces", " padded ")],
        [("X-Unicode", "é"), ("X-Ok", "1")],
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

        // The same fields given as the request's own headers, over a client header they replace.
        session.enqueue(.status(200))
        let client = HTTPClient(session: session, headers: ["accept": "text/plain", "X-Client": "1"])
        client.get(url: url, headers: headers, completion: recorder.record)
        var alongside = expected
        alongside.addValue("1", forHTTPHeaderField: "X-Client")
        if !fields.contains(where: { $0.0.lowercased() == "accept" }) { alongside.addValue("text/plain", forHTTPHeaderField: "Accept") }
        #expect(folded(try #require(session.requests.last).urlRequest) == folded(alongside))
    }

    /// A header that would split the request (a line break in its value, a space in its name)
    /// or that the wire cannot carry (a NUL, another control character) fails the request with
    /// a typed error naming the header, what it holds and where, and nothing is sent. Foundation
    /// on Linux drops such a value without a word; a session may also send it as it is. The
    /// value is never quoted: it may be a credential.
    @Test(arguments: [
        ("X-Evil", "secret\r\nX-Injected: 1", "a carriage return (CR) at byte 7 of 21"),
        ("X-Evil", "secret\nX-Injected: 1", "a line feed (LF) at byte 7 of 20"),
        ("X-Nul", "secret\u{0}", "a NUL at byte 7 of 7"),
        ("X-Bell", "secret\u{7}", "the control character 0x7 at byte 7 of 7"),
        ("X-Delete", "secret\u{7F}", "the control character 0x7F at byte 7 of 7"),
        ("Bad Name", "secret", "a space at byte 4"),
        ("X-Naïve", "secret", "a non-ASCII character at byte 5"),
        ("X:Colon", "secret", "\":\" at byte 2"),
        ("", "secret", "it is empty"),
        ("Authorization: Bearer secret", "", "\":\" at byte 14"),
    ])
    func aHeaderThatCannotBeSentFailsTheRequestBeforeAnythingIsSent(name: String, value: String, found: String) async throws {
        let session = MockURLSession()
        session.enqueue(.status(200))
        let client = HTTPClient(session: session)
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.get("https://api.example.com/a", headers: ["Accept": "application/json", name: value])
        }
        guard case .invalidHeader(let named, let reason) = try #require(error) else {
            Issue.record("expected invalidHeader, got \(String(describing: error))")
            return
        }
        #expect(named == name)
        #expect(reason.contains(found), "\(reason)")
        #expect(session.requests.isEmpty)
        #expect(!"\(try #require(error))".contains("secret"))

        // The client's own headers are checked as a request's are.
        var own = HTTPHeaders()
        own.add(name: name, value: value)
        let completed = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()
        let url = try #require(URL(string: "https://api.example.com/a"))
        HTTPClient(session: session, headers: own).get(url: url, completion: completed.record)
        // The failure is known before a task is made: the completion has run on return.
        let result = try #require(completed.value)
        guard case .failure(.invalidHeader(name, _)) = result else {
            Issue.record("expected invalidHeader, got \(result)")
            return
        }
        #expect(session.requests.isEmpty)
    }

    /// A method or a header that the app's own code sets (an interceptor, a `configure`
    /// closure) is checked as the client's own are before the request goes to the session: a
    /// line break in a method or a header name would split the request on the wire, and one in
    /// a value set by assignment is kept by Foundation.
    @Test(
        arguments: ["interceptor", "configure"],
        [
            { (request: inout URLRequest) in request.httpMethod = "GET /smuggled HTTP/1.1\r\nX-Injected: 1\r\n\r\nGET" },
            { (request: inout URLRequest) in request.setValue("1", forHTTPHeaderField: "X-A: 1\r\nX-Injected") },
            { (request: inout URLRequest) in request.allHTTPHeaderFields = ["X-A": "1\r\nX-Injected: 1"] },
        ] as [@Sendable (inout URLRequest) -> Void])
    func whatTheAppsOwnCodeSetsIsCheckedBeforeItIsSent(
        by place: String, _ change: @escaping @Sendable (inout URLRequest) -> Void
    ) async throws {
        struct Changing: Interceptor {
            let change: @Sendable (inout URLRequest) -> Void
            func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest {
                var request = request
                change(&request)
                return request
            }
        }
        let session = MockURLSession()
        session.enqueue(.status(200))
        var request = HTTPClient.Request<Data>.get("https://api.example.com/a")
        let client: HTTPClient
        if place == "interceptor" {
            client = HTTPClient(session: session, interceptors: [Changing(change: change)])
        } else {
            client = HTTPClient(session: session)
            request.configure = change
        }
        do {
            _ = try await client.send(request)
            // Where Foundation itself drops what it cannot send (as Apple's may), nothing of it goes.
            let sent = try #require(session.requests.last).urlRequest
            let texts = [sent.httpMethod ?? ""] + (sent.allHTTPHeaderFields ?? [:]).flatMap { [$0.key, $0.value] }
            #expect(!texts.contains { $0.utf8.contains(13) || $0.utf8.contains(10) }, "sent \(texts)")
        } catch let error as HTTPClientError {
            switch error {
            case .invalidMethod, .invalidHeader: #expect(session.requests.isEmpty)
            default: Issue.record("expected invalidMethod or invalidHeader, got \(error)")
            }
        }
    }

    /// A bearer token that cannot be sent fails the request with the header named, rather than
    /// sending it with no token (Foundation on Linux drops such a value) to come back a 401.
    @Test func aBearerTokenWithALineBreakFailsTheRequestNamingTheHeader() async throws {
        let session = MockURLSession()
        session.enqueue(.status(200))
        let tokens = BearerTokenInterceptor(token: "secret\r\nX-Injected: 1") { "fresh" }
        let error = await #expect(throws: HTTPClientError.self) {
            try await HTTPClient(session: session, interceptors: [tokens]).get("https://api.example.com/a")
        }
        guard case .interceptorFailed(HTTPClientError.invalidHeader("Authorization", let reason)) = try #require(error) else {
            Issue.record("expected invalidHeader from the interceptor, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("a carriage return (CR) at byte 14"))
        #expect(!"\(try #require(error))".contains("secret"))
        #expect(session.requests.isEmpty)
    }

    /// A method that is not a token (a space or a line break in it would split the request
    /// line, which a session sends as it is given) fails the request before anything is sent.
    @Test(arguments: [
        ("GET /admin HTTP/1.1\r\nX", "a space at byte 4"), ("PUR\nGE", "a line feed (LF) at byte 4"), ("", "it is empty"),
        // Upper-cased by Unicode's rules, these would be POST and STRASSE: only ASCII letters are.
        ("poſt", "a non-ASCII character at byte 3"), ("straße", "a non-ASCII character at byte 5"),
    ])
    func aMethodThatIsNotATokenFailsTheRequestBeforeAnythingIsSent(method: String, found: String) async throws {
        let session = MockURLSession()
        session.enqueue(.status(200))
        let client = HTTPClient(session: session)
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPClient.Request<Data>(method: HTTPMethod(rawValue: method), url: "https://api.example.com/a"))
        }
        guard case .invalidMethod(let named, let reason) = try #require(error) else {
            Issue.record("expected invalidMethod, got \(String(describing: error))")
            return
        }
        #expect(named == HTTPMethod(rawValue: method).rawValue)
        #expect(reason.contains(found), "\(reason)")
        #expect(session.requests.isEmpty)
    }
}
