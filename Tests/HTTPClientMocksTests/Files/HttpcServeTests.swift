import Foundation
import HTTPClientStubs
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `httpc serve`, run as a user runs it: the binary `swift test` built, real requests over loopback.
@Suite("httpc serve")
struct HttpcServeTests {
    let httpc = HttpcTests()

    /// A running `httpc serve`: its base URL and port, read from the first line it printed, and
    /// the log lines that follow (left in the pipe until asked for). Every test that starts
    /// `httpc serve` starts it through this.
    final class Server {
        let launched: LaunchedProcess
        let firstLine: String
        let baseURL: URL
        let port: Int

        /// Reads the first line of `launched`, an `httpc serve` just started; throws, with what
        /// it printed and wrote on stderr, when that line names no address.
        init(_ launched: LaunchedProcess) throws {
            self.launched = launched
            firstLine = launched.nextLine() ?? ""
            guard let url = firstLine.split(separator: " ").last.flatMap({ URL(string: String($0)) }), let port = url.port else {
                launched.signal(SIGTERM)
                throw RawConnection.ReadError(description: "httpc serve printed \"\(firstLine)\"; stderr: \(launched.finish().errors)")
            }
            baseURL = url
            self.port = port
        }

        /// Starts `httpc serve --port 0` with `arguments` in `directory`.
        convenience init(_ arguments: [String], in directory: URL = HttpcTests.root, errors: LaunchedProcess.Output = .pipe) throws {
            try self.init(try LaunchedProcess(try HttpcTests.binary, ["serve", "--port", "0"] + arguments, in: directory, errors: errors))
        }

        /// The next log line.
        func nextLine() -> String? { launched.nextLine() }

        /// Sends `method` to `path` (with `body`) and returns the status and the body.
        func send(_ path: String, method: String = "GET", body: Data? = nil) async throws -> (status: Int, body: String) {
            var request = URLRequest(url: try #require(URL(string: baseURL.absoluteString + path)))
            request.httpMethod = method
            request.httpBody = body
            let (data, response) = try await HttpcServeTests.session.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
        }
    }

    /// One session for the suite: on Linux, a session per request has crashed on teardown.
    static let session = URLSession(configuration: .ephemeral)

    func serve(_ arguments: String..., in directory: URL = HttpcTests.root) throws -> Server {
        try Server(arguments, in: directory)
    }

    // MARK: Serving

    @Test func theFirstLineSaysWhatIsServedAndWhereAsSoonAsItListens() throws {
        let server = try serve("--fixtures", "Examples/Fixtures")
        #expect(server.firstLine.hasPrefix("serving Examples/Fixtures on http://127.0.0.1:"))
        #expect(server.baseURL.port.map { $0 > 0 } == true)
    }

    @Test func onEveryInterfaceTheFirstLineNamesAddressesAClientCanUseLoopbackLast() async throws {
        let server = try serve("--host", "0.0.0.0", "--fixtures", "Examples/Fixtures")
        #expect(server.firstLine.hasPrefix("serving Examples/Fixtures on every interface: http://"))
        #expect(!server.firstLine.contains("0.0.0.0"))
        let port = try #require(server.baseURL.port)
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(port)")
        #expect(try await server.send("/users/1").status == 200)
    }

    @Test func onEveryInterfaceARecordedRedirectPointsAtTheHostTheClientAddressed() throws {
        let folder = try TemporaryFolder()
        try folder.write("api.json", Self.cassette)
        let server = try serve("--host", "0.0.0.0", "--cassette", "api.json", in: folder.url)
        let port = try #require(server.baseURL.port)
        let connection = try RawConnection(port: port)

        connection.send("GET /old HTTP/1.1\r\nHost: 192.0.2.7:\(port)\r\n\r\n")
        let redirect = try connection.readResponse()
        connection.send("GET /users?page=2 HTTP/1.1\r\nHost: 192.0.2.7:\(port)\r\n\r\n")
        let page = try connection.readResponse()

        #expect(redirect.status == 301)
        #expect(redirect.values("Location") == ["http://192.0.2.7:\(port)/users?page=2"])
        // The recording answers whatever host the client used for this server.
        #expect(page.text == "page two")
    }

    @Test func aFixtureFolderAnswersAndEachRequestIsLoggedWithTheFileThatAnswered() async throws {
        let server = try serve("--fixtures", "Examples/Fixtures")
        let answer = try await server.send("/users/1")
        #expect(answer.status == 200)
        #expect(answer.body.contains("Ada Lovelace"))
        let line = try #require(server.nextLine())
        #expect(line.hasPrefix("GET /users/1 -> 200 ("))
        #expect(line.contains("GET|-users-1.json"))
    }

    @Test func aRequestNothingAnswersGetsA404WithTheReportAndItsLogLineSaysWhy() async throws {
        let server = try serve("--fixtures", "Examples/Fixtures")
        let answer = try await server.send("/users/7")
        #expect(answer.status == 404)
        #expect(answer.body.contains("GET|-users-7.json"))
        let line = try #require(server.nextLine())
        #expect(line.hasPrefix("GET /users/7 -> 404 (no stub matched"))
        #expect(line.contains("GET|-users-7.json"))
    }

    @Test func credentialsInARequestAreRedactedInTheLog() async throws {
        let server = try serve("--fixtures", "Examples/Fixtures")
        _ = try await server.send("/users/1?api_key=s3cr3t-value")
        let line = try #require(server.nextLine())
        #expect(line.hasPrefix("GET /users/1?api_key="))
        #expect(!line.contains("s3cr3t-value"))
    }

    @Test func aCassetteRecordedAgainstAnotherHostAnswersTheSamePathAndQueryHere() async throws {
        let folder = try TemporaryFolder()
        try folder.write("api.json", Self.cassette)
        let server = try serve("--cassette", "api.json", in: folder.url)
        let answer = try await server.send("/users?page=2")
        #expect(answer.status == 200)
        #expect(answer.body == "page two")
        let line = try #require(server.nextLine())
        #expect(line.hasPrefix("GET /users?page=2 -> 200 ("))
        #expect(line.contains("interaction 1 of "))
    }

    @Test func aRecordedRedirectToItsOwnHostIsFollowedToThisServer() async throws {
        let folder = try TemporaryFolder()
        try folder.write("api.json", Self.cassette)
        let server = try serve("--cassette", "api.json", in: folder.url)
        // URLSession follows the Location: to the real host it would fail (no network here).
        let answer = try await server.send("/old")
        #expect(answer.status == 200)
        #expect(answer.body == "page two")
    }

    @Test func theFirstSourceGivenAnswersWhereSeveralCould() async throws {
        let folder = try TemporaryFolder()
        try folder.write("api.json", Self.cassette)
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("fixtures"), withIntermediateDirectories: false)
        try folder.write("fixtures/GET|-users?page=2.json", #"{"from": "fixtures"}"#)
        let cassetteFirst = try serve("--cassette", "api.json", "--fixtures", "fixtures", in: folder.url)
        #expect(try await cassetteFirst.send("/users?page=2").body == "page two")
        let fixturesFirst = try serve("--fixtures", "fixtures", "--cassette", "api.json", in: folder.url)
        #expect(try await fixturesFirst.send("/users?page=2").body.contains("fixtures"))
        // What only the second source answers is still answered.
        #expect(try await fixturesFirst.send("/old").status == 200)
    }

    /// Recorded against https://api.example.com: a page, and a redirect to it.
    static let cassette = #"""
        {"version": 1, "interactions": [
          {"request": {"method": "GET", "url": "https://api.example.com/users?page=2", "headers": []},
           "response": {"status": 200, "headers": [["Content-Type", "text/plain"]], "body": {"text": "page two"}},
           "duration": 0, "recordedAt": "2026-11-22T00:00:00Z"},
          {"request": {"method": "GET", "url": "https://api.example.com/old", "headers": []},
           "response": {"status": 301, "headers": [["Location", "https://api.example.com/users?page=2"]]},
           "duration": 0, "recordedAt": "2026-11-22T00:00:00Z"}
        ]}
        """#

    // MARK: Recording through the server

    @Test func aServerWithAnUpstreamRecordsWhatItForwardsAndReplaysItAfterARestart() async throws {
        let folder = try TemporaryFolder()
        let api = StubRegistry("the real API", reporting: .disabled)
        api.stub(.get, "/users/1").respond(.json(raw: #"{"id": 1}"#))
        let apiServer = try StubServer(api)
        let upstream = apiServer.baseURL.absoluteString
        let recorder = try serve("--upstream", upstream, "--record", "api.json", in: folder.url)
        #expect(recorder.firstLine.hasPrefix("serving \(upstream) (recorded to api.json, record mode once) on http://127.0.0.1:"))

        let live = try await recorder.send("/users/1")
        #expect(live.status == 200)
        let recorded = try #require(recorder.nextLine())
        #expect(recorded.hasPrefix("GET /users/1 -> 200 (recorded from \(upstream) as interaction 1 of "))
        // Ctrl-C: the file is complete, as it was after the exchange.
        recorder.launched.signal(SIGINT)
        #expect(recorder.launched.finish().status == 0)
        let file = folder.url.appendingPathComponent("api.json")
        #expect(try Cassette(contentsOf: file).interactions.count == 1)

        // The upstream is gone: the recording answers.
        apiServer.stop()
        let replay = try serve("--upstream", upstream, "--record", "api.json", in: folder.url)
        let replayed = try await replay.send("/users/1")
        #expect(replayed.status == 200)
        #expect(replayed.body == live.body)
        #expect(try #require(replay.nextLine()).contains(": replayed interaction 1 of "))
        #expect(api.requests.count == 1)
    }

    @Test func aRecordingThatCannotBeReadIsNamedAndNothingIsServed() async throws {
        let run = try await httpc.run(["serve", "--upstream", "http://127.0.0.1:1", "--record", "missing.json", "--record-mode", "none"])
        #expect(run.status == 3)
        #expect(run.errors.contains("missing.json: the cassette cannot be read"))
        #expect(run.output.isEmpty)
    }

    // MARK: Stopping

    @Test("a signal stops the server, frees its port and exits 0", arguments: [SIGINT, SIGTERM])
    func aSignalStopsTheServerFreesItsPortAndExits0(signal: Int32) async throws {
        let server = try serve("--fixtures", "Examples/Fixtures")
        #expect(try await server.send("/users/1").status == 200)
        server.launched.signal(signal)
        let run = server.launched.finish()
        #expect(run.status == 0)
        #expect(run.errors.isEmpty)
        await #expect(throws: (any Error).self) { try await server.send("/users/1") }
    }

    // MARK: Refused: nothing served

    @Test(
        "bad arguments are usage errors (exit 2)",
        arguments: [
            ([], "httpc serve needs a source: --fixtures DIR, --cassette FILE, --har FILE, --mocktails PATH or --upstream URL"),
            (["--fixtures"], "--fixtures needs a value"),
            (["--port", "http", "--fixtures", "F"], #"--port: "http" is not a port number (0 to 65535; 0 picks a free one)"#),
            (["--port", "70000", "--fixtures", "F"], #"--port: "70000" is not a port number (0 to 65535; 0 picks a free one)"#),
            (["--port", "1", "--port", "2", "--fixtures", "F"], "--port is given twice; give it once"),
            (["--fixtures", "F", "--record", "api.json"], "--record needs --upstream: it records what is forwarded there"),
            (["--upstream", "http://127.0.0.1:1", "--record-mode", "once"], "--record-mode needs --record"),
            (
                ["--upstream", "http://127.0.0.1:1", "--record", "a.json", "--record-mode", "sometimes"],
                #"--record-mode: "sometimes" is not one of none, once, new_episodes, all"#
            ),
            (["--upstream", "api.example.com"], #"--upstream: "api.example.com" is not an http or https URL"#),
            (
                ["--fixtures", "F", "https://api.example.com"],
                #"httpc serve takes no argument "https://api.example.com": name a source with --fixtures, --cassette, --har, --mocktails or --upstream"#
            ),
        ])
    func badArgumentsAreUsageErrors(arguments: [String], message: String) async throws {
        let run = try await httpc.run(["serve"] + arguments)
        #expect(run.status == 2)
        #expect(run.errors.hasPrefix("httpc: \(message)\nusage: httpc serve"))
        #expect(run.output.isEmpty)
    }

    @Test(
        "a source that cannot be loaded is named and nothing is served (exit 3)",
        arguments: [
            (["--fixtures", "missing"], "missing"),
            (["--cassette", "missing.json"], "missing.json"),
            (["--har", "missing.har"], "missing.har"),
            (["--mocktails", "missing.tail"], "missing.tail"),
            (["--fixtures", "Examples/Fixtures", "--cassette", "broken.json"], "broken.json"),
        ])
    func aSourceThatCannotBeLoadedIsNamed(arguments: [String], path: String) async throws {
        let folder = try TemporaryFolder()
        try folder.write("broken.json", "{not a cassette")
        try FileManager.default.createSymbolicLink(
            at: folder.url.appendingPathComponent("Examples"), withDestinationURL: HttpcTests.root.appendingPathComponent("Examples"))
        let run = try await httpc.run(["serve"] + arguments, in: folder.url)
        #expect(run.status == 3)
        #expect(run.errors.hasPrefix("httpc: "))
        #expect(run.errors.contains(path))
        #expect(run.output.isEmpty)
    }

    @Test("a source that is not a regular file is refused before it is opened", arguments: ["--cassette", "--har", "--mocktails"])
    func aSourceThatIsNotARegularFileIsRefusedBeforeItIsOpened(option: String) async throws {
        let folder = try TemporaryFolder()
        // Opening a FIFO blocks until a writer comes: httpc would hang here.
        #expect(mkfifo(folder.url.appendingPathComponent("pipe").path, 0o600) == 0)
        let run = try await httpc.run(["serve", option, "pipe"], in: folder.url)
        #expect(run.status == 3)
        #expect(run.errors.contains("pipe: "))
        #expect(run.errors.contains("(it is a FIFO (named pipe), not a regular file)"))
    }

    @Test func aPortInUseIsNamedAndExits3() async throws {
        let taken = try StubServer(StubRegistry(reporting: .disabled))
        defer { taken.stop() }
        let run = try await httpc.run(["serve", "--port", String(taken.port), "--fixtures", "Examples/Fixtures"])
        #expect(run.status == 3)
        #expect(run.errors.hasPrefix("httpc: StubServer could not bind 127.0.0.1 port \(taken.port): "))
        #expect(run.output.isEmpty)
    }

    @Test func anAddressThatCannotBeListenedOnIsNamedAndExits3() async throws {
        let run = try await httpc.run(["serve", "--host", "203.0.113.9", "--fixtures", "Examples/Fixtures"])
        #expect(run.status == 3)
        #expect(run.errors.contains("203.0.113.9"))
        #expect(run.output.isEmpty)
    }
}
