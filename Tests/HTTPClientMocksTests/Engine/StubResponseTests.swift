import Foundation
import HTTPClientMocks
@_spi(Engine) import HTTPClientStubs
import Testing

@testable import HTTPClient

@Suite("Stub responses and sequences")
struct StubResponseTests {
    let stubs = StubRegistry(reporting: .disabled)

    /// A client of `stubs` through `transport`.
    func client(_ transport: Transport) throws -> HTTPClient {
        HTTPClient(session: try transport.session(stubs), baseURL: testURL("https://api.example.com"))
    }

    @Test(arguments: Transport.allCases)
    func answersWithStatusHeadersAndBodyFromDataStringAndJSON(_ transport: Transport) async throws {
        struct User: Codable, Equatable, Sendable { let id: Int }
        stubs.stub(.get, "/data").respond(.status(201, headers: ["ETag": "v7"], body: Data([0, 1, 2])))
        stubs.stub(.get, "/text").respond(.text("hello"))
        stubs.stub(.get, "/json").respond(try .json(User(id: 3)))
        let client = try client(transport)
        let data = try await client.send(.get("data"))
        #expect(data.statusCode == 201)
        #expect(data.headers["etag"] == "v7")
        #expect(data.body == Data([0, 1, 2]))
        #expect(try await client.send(.get("text")).text == "hello")
        #expect(try await client.send(HTTPClient.Request<User>.get("json")).value == User(id: 3))
    }

    /// Where a stub's failure to answer arrives as an answer (documented), it is a 500 whose body
    /// says what went wrong.
    @Test(arguments: Transport.allCases)
    func answersWithAFileReadWhenTheRequestArrives(_ transport: Transport) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stub-\(UUID().uuidString).json")
        try Data(#"{"from":"file"}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        stubs.stub(.get, "/file").respond(.file(file, headers: ["Content-Type": "application/json"]))
        stubs.stub(.get, "/missing").respond(.file(file.appendingPathExtension("nope")))
        let client = try client(transport)
        #expect(try await client.send(.get("file")).text == #"{"from":"file"}"#)
        let error = await #expect(throws: HTTPClientError.self) { try await client.send(.get("missing")) }
        if transport.differs(in: .failuresToAnswer) {
            #expect(error?.response?.statusCode == 500)
            #expect(error?.response?.text?.contains("cannot be read (No such file or directory)") == true)
        } else {
            #expect(
                error?.underlyingError as? ResponseFileError
                    == .unreadable(file: file.appendingPathExtension("nope").path, reason: "No such file or directory"))
            #expect(error?.description.contains("cannot be read (No such file or directory)") == true)
        }
    }

    @Test(arguments: Transport.allCases)
    func aFileResponseWhoseFileIsAFIFOFailsAtOnceWithoutWaitingForAWriter(_ transport: Transport) async throws {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("stub-\(UUID().uuidString).pipe")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        defer { try? FileManager.default.removeItem(at: fifo) }
        stubs.stub(.get, "/pipe").respond(.file(fifo))
        let client = try client(transport)
        let error = await #expect(throws: HTTPClientError.self) { try await client.send(.get("pipe")) }
        let reason = "it is a FIFO (named pipe), not a regular file"
        if transport.differs(in: .failuresToAnswer) {
            #expect(error?.response?.statusCode == 500)
            #expect(error?.response?.text?.contains(reason) == true)
        } else {
            #expect(error?.underlyingError as? ResponseFileError == .unreadable(file: fifo.path, reason: reason))
        }
    }

    @Test(arguments: Transport.allCases)
    func aFileResponseGivenAnHTTPURLFailsWithoutDownloadingIt(_ transport: Transport) async throws {
        stubs.stub(.get, "/file").respond(.file(testURL("http://127.0.0.1:1/data.json")))
        let client = try client(transport)
        let error = await #expect(throws: HTTPClientError.self) { try await client.send(.get("file")) }
        if transport.differs(in: .failuresToAnswer) {
            #expect(error?.response?.statusCode == 500)
            #expect(error?.response?.text?.contains("http://127.0.0.1:1/data.json: not a file URL") == true)
        } else {
            #expect(error?.underlyingError as? ResponseFileError == .notAFileURL("http://127.0.0.1:1/data.json"))
            #expect(error?.description.contains("http://127.0.0.1:1/data.json: not a file URL") == true)
        }
    }

    @Test(arguments: Transport.allCases)
    func anErrorStatusKeepsItsBody(_ transport: Transport) async throws {
        stubs.stub(.delete, "/items/1").respond(.json(raw: #"{"error":"locked"}"#, status: 423))
        let client = try client(transport)
        let error = await #expect(throws: HTTPClientError.self) { try await client.send(.delete("items/1")) }
        #expect(error?.response?.statusCode == 423)
        #expect(error?.response?.text == #"{"error":"locked"}"#)
    }

    /// `HTTPClient` joins the values whatever the transport; a `URLResponse` read directly
    /// differs where the client keeps the lines apart (documented).
    @Test(arguments: Transport.allCases)
    func repeatedHeaderFieldsArriveAsOneFieldWithTheValuesJoined(_ transport: Transport) async throws {
        var headers: HTTPHeaders = [:]
        headers.add(name: "X-Tag", value: "a")
        headers.add(name: "x-tag", value: "b")
        stubs.stub(.get, "/tags").respond(.status(200, headers: headers))
        #expect(try await client(transport).send(.get("tags")).headers["X-Tag"] == "a, b")
        let (_, response) = try await transport.session(stubs).data(for: request("GET", "https://api.example.com/tags"))
        let fields = try #require((response as? HTTPURLResponse)?.allHeaderFields as? [String: String])
        let tags = fields.filter { $0.key.lowercased() == "x-tag" }
        #expect(tags == (transport.differs(in: .repeatedHeaderFields) ? ["X-Tag": "a", "x-tag": "b"] : ["X-Tag": "a, b"]))
    }

    /// What a real server's answer tells a client before the body: how long it is (progress
    /// reports it as `expectedBytes`).
    @Test(arguments: Transport.allCases)
    func anAnswerOfKnownLengthSaysHowLongItIs(_ transport: Transport) async throws {
        stubs.stub(.get, "/text").respond(.text("abcd"))
        let (chunks, response) = try await transport.session(stubs).chunks(for: request("GET", "https://api.example.com/text"))
        for try await _ in chunks {}
        #expect(response.expectedContentLength == 4)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Length") == "4")
    }

    /// A body that comes in parts over time has no length to announce: a server sends it
    /// chunked.
    @Test(arguments: Transport.allCases)
    func aStreamedAnswerSaysNoLength(_ transport: Transport) async throws {
        stubs.stub(.get, "/feed").respond(.streamed([.text("ab"), .text("cd")]))
        let (chunks, response) = try await transport.session(stubs).chunks(for: request("GET", "https://api.example.com/feed"))
        var body = Data()
        for try await chunk in chunks { body.append(chunk) }
        #expect(body == Data("abcd".utf8))
        #expect(response.expectedContentLength == -1)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Length") == nil)
    }

    /// A response to HEAD has no body (RFC 9110 section 9.3.2), whatever the stub says, and
    /// says how long the GET's would be.
    @Test(arguments: Transport.allCases)
    func aHeadRequestGetsTheHeadWithoutTheBody(_ transport: Transport) async throws {
        stubs.stub(.head, "/report").respond(.text("body", headers: ["X-Pages": "3"]))
        let response = try await client(transport).send(.init(method: .head, url: "report"))
        #expect(response.headers["X-Pages"] == "3")
        #expect(response.body.isEmpty)
        #expect(response.headers["Content-Length"] == "4")
    }

    /// A HEAD stub has no body to count: the length it declares is the one the head carries.
    @Test(arguments: Transport.allCases)
    func aHeadAnswerWithoutABodyCarriesTheLengthTheStubDeclares(_ transport: Transport) async throws {
        stubs.stub(.head, "/video").respond(.status(200, headers: ["Content-Length": "1234"]))
        let (data, response) = try await transport.session(stubs).data(for: request("HEAD", "https://api.example.com/video"))
        #expect(data.isEmpty)
        #expect(response.expectedContentLength == 1234)
    }

    /// A 204 or a 304 has no body (RFC 9110 sections 15.3.5 and 15.4.5), whatever the stub says.
    @Test(arguments: Transport.allCases, [204, 304])
    func aNoContentOrNotModifiedAnswerHasNoBody(_ transport: Transport, status: Int) async throws {
        stubs.stub(.get, "/item").respond(.status(status, body: Data("stray".utf8)))
        let (data, response) = try await transport.session(stubs).data(for: request("GET", "https://api.example.com/item"))
        #expect(response.status == status)
        #expect(data.isEmpty)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Length") == nil)
    }

    /// Where an error's code cannot reach the client (documented), the request still fails with
    /// a `URLError`.
    @Test(
        "transport errors are delivered as URLErrors",
        arguments: Transport.allCases, [URLError.Code.timedOut, .notConnectedToInternet, .networkConnectionLost])
    func transportErrors(_ transport: Transport, code: URLError.Code) async throws {
        stubs.stub(.get, "/down").respond(.error(URLError(code)))
        let client = try client(transport)
        let error = await #expect(throws: HTTPClientError.self) { try await client.send(.get("down")) }
        #expect(error?.urlError != nil)
        if !transport.differs(in: .stubbedErrors) { #expect(error?.urlError?.code == code) }
    }

    @Test(arguments: Transport.allCases)
    func computedResponsesSeeCapturesQueryAndBody(_ transport: Transport) async throws {
        stubs.stub(.post, "/users/{id}/notes").respond(
            .computed { request in
                .text("\(request.pathParameters["id"] ?? "?") \(request.queryItems.first?.value ?? "") \(request.text ?? "")")
            })
        let response = try await client(transport).send(
            .init(
                method: .post, url: "users/7/notes", query: [URLQueryItem(name: "q", value: "x")],
                body: .text("body")))
        #expect(response.text == "7 x body")
    }

    @Test(arguments: Transport.allCases)
    func echoReturnsTheRequestBodyAndType(_ transport: Transport) async throws {
        stubs.stub(.put, "/echo").respond(.echo)
        let response = try await client(transport).send(.init(method: .put, url: "echo", body: .json(["k": "v"])))
        #expect(response.text == #"{"k":"v"}"#)
        #expect(response.headers["Content-Type"] == "application/json")
    }

    @Test(arguments: Transport.allCases)
    func failTwiceThenSucceedThenRepeatTheLast(_ transport: Transport) async throws {
        let flaky = stubs.stub(.get, "/status").respond(.status(503), .status(503), .text("ok"))
        let client = try client(transport)
        var statuses: [Int] = []
        for _ in 0..<4 {
            do { statuses.append(try await client.send(.get("status")).statusCode) } catch {
                statuses.append(error.response?.statusCode ?? -1)
            }
        }
        #expect(statuses == [503, 503, 200, 200])
        #expect(flaky.callCount == 4)
        #expect(!flaky.isExhausted)
    }

    @Test func exhaustedSequenceCanStopMatchingAndFallThrough() {
        stubs.stub(.get, "/x").respond(.status(204))
        let fresh = stubs.stub(.get, "/x").respond(.status(201), .status(202)).whenExhausted(.stopMatching)
        let get = request("GET", "https://h/x")
        #expect([stubs.status(for: get), stubs.status(for: get), stubs.status(for: get)] == [201, 202, 204])
        #expect(fresh.isExhausted)
    }

    @Test func timesLimitsMatchesAndOnceIsOneShot() {
        let limited = stubs.stub(.get, "/t").respond(.status(200)).times(2)
        let once = stubs.stub(.get, "/o").respond(.status(200)).once()
        let t = request("GET", "https://h/t")
        let o = request("GET", "https://h/o")
        #expect([stubs.status(for: t), stubs.status(for: t), stubs.status(for: t)] == [200, 200, nil])
        #expect([stubs.status(for: o), stubs.status(for: o)] == [200, nil])
        #expect(limited.isExhausted && once.isExhausted)
        #expect(stubs.unmatchedRequests.count == 2)
        #expect(stubs.unmatchedRequests[0].candidates.first?.reasons == ["matches, but is used up (2 calls)"])
    }

    @Test func newerStubsWinOverOlderOnesIndexedOrNot() {
        stubs.stub(.get, "/users/1").respond(.status(201))
        stubs.stub(.get, "/users/{id}").respond(.status(202))
        let get = request("GET", "https://h/users/1")
        #expect(stubs.status(for: get) == 202)
        stubs.stub(.get, "/users/1").respond(.status(203))
        #expect(stubs.status(for: get) == 203)
        stubs.stub(where: .path("/users/1")).respond(.status(204))
        #expect(stubs.status(for: get) == 204)
        stubs.stub(.get, .prefix("/users")).respond(.status(205))
        #expect(stubs.status(for: get) == 205)
    }

    @Test func fullURLTargetsFixSchemeHostAndExactQuery() {
        stubs.stub(.get, "https://api.example.com/search?q=swift&page=2").respond(.status(200))
        #expect(stubs.status(for: request("GET", "https://api.example.com/search?page=2&q=swift")) == 200)
        #expect(stubs.status(for: request("GET", "http://api.example.com/search?page=2&q=swift")) == nil)
        #expect(stubs.status(for: request("GET", "https://other.example.com/search?page=2&q=swift")) == nil)
        #expect(stubs.status(for: request("GET", "https://api.example.com/search?q=swift")) == nil)
    }

    @Test func removedStubsNoLongerMatch() {
        let stub = stubs.stub(.get, "/r").respond(.status(200))
        stubs.stub(where: .path(.prefix("/s"))).respond(.status(200))
        stubs.remove(stub)
        #expect(stubs.status(for: request("GET", "https://h/r")) == nil)
        #expect(stubs.stubs.count == 1)
        stubs.reset()
        #expect(stubs.stubs.isEmpty && stubs.requests.isEmpty && stubs.unmatchedRequests.isEmpty)
    }

    @Test func tenThousandExactStubsAreFoundThroughTheIndex() {
        for index in 0..<10_000 { stubs.stub(.get, "/items/\(index)").respond(.status(200)) }
        let found = stubs.firstMatch(for: RecordedRequest(request("GET", "https://h/items/9876")))
        #expect(found?.id == 9876)
        #expect(stubs.firstMatch(for: RecordedRequest(request("POST", "https://h/items/9876"))) == nil)
    }

    @Test func tenThousandTemplatesAreFoundThroughTheFirstSegmentIndex() {
        for index in 0..<10_000 { stubs.stub(.get, "/items\(index)/{id}") }
        #expect(stubs.firstMatch(for: RecordedRequest(request("GET", "https://h/items0/7")))?.id == 0)
        #expect(stubs.firstMatch(for: RecordedRequest(request("GET", "https://h/items9999/7")))?.id == 9_999)
        #expect(stubs.firstMatch(for: RecordedRequest(request("GET", "https://h/items10000/7"))) == nil)
    }

    @Test func indexedAndScannedStubsStillCompeteByAge() {
        let get = RecordedRequest(request("GET", "https://h/users/1"))
        let scanned = stubs.stub(.get, "/{kind}/1")
        #expect(stubs.firstMatch(for: get) === scanned)
        let bySegment = stubs.stub(.get, .prefix("/users/"))
        #expect(stubs.firstMatch(for: get) === bySegment)
        let partialPrefix = stubs.stub(.get, .prefix("/us"))
        #expect(stubs.firstMatch(for: get) === partialPrefix)
        let anyMethod = stubs.stub(where: .path("/users/{id}"))
        #expect(stubs.firstMatch(for: get) === anyMethod)
        #expect(stubs.firstMatch(for: RecordedRequest(request("GET", "https://h/usersX/1"))) === partialPrefix)
    }

    @Test func stubsComeFirstThenQueuedAnswersThenNextValuesAndAllAreRecordedAndVerifiable() async throws {
        let failures = CollectedFailures()
        let stubs = StubRegistry("strict", reporting: failures.reporting)
        stubs.stub(.get, "/q").respond(.status(201)).once()
        let session = MockURLSession(stubs: stubs)
        session.enqueue(.status(202), .status(203))
        session.nextData = Data("canned".utf8)
        let client = HTTPClient(session: session)

        #expect(try await client.get(testURL("https://h/q")).statusCode == 201)  // the stub, though the queue is not empty
        #expect(try await client.get(testURL("https://h/q")).statusCode == 202)  // then the queue, oldest first
        #expect(try await client.get(testURL("https://h/other")).statusCode == 203)
        #expect(try await client.get(testURL("https://h/q")).text == "canned")  // then the next... values
        session.nextData = nil
        // A registry of the test's own is strict: nothing answers, the miss is reported.
        let miss = await #expect(throws: HTTPClientError.self) { try await client.get(testURL("https://h/q")) }
        #expect(miss?.underlyingError is UnmatchedRequestError)
        #expect(failures.all.count == 1)

        stubs.verify(session.queuedAnswers, requested: .exactly(2))
        stubs.verify(session.cannedAnswers, requested: .exactly(1))
        #expect(session.queuedAnswers.calls.map(\.path) == ["/q", "/other"])
        #expect(session.requests.map(\.path) == ["/q", "/q", "/other", "/q", "/q"])
        #expect(session.requests.map(\.path) == stubs.requests.map(\.path))
    }

    @Test func aSessionWithoutARegistryAnswers200WhenNothingElseDoes() async throws {
        let session = MockURLSession()
        let client = HTTPClient(session: session)
        let response = try await client.get(testURL("https://h/anything"))
        #expect(response.statusCode == 200)
        #expect(response.body.isEmpty)
        #expect(session.stubs.unmatchedRequests.isEmpty)
        #expect(session.lastURL == testURL("https://h/anything"))
    }
}
