import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// A HAR 1.2 archive as mattt/Replay writes one: a single GET answered with `body`.
func replayArchive(url: String, body: String, requestHeaders: [String: String] = [:]) -> String {
    let headers = requestHeaders.sorted { $0.key < $1.key }.map { #"{"name": "\#($0.key)", "value": "\#($0.value)"}"# }
    return #"""
        {"log": {"version": "1.2", "creator": {"name": "Replay", "version": "1.0"}, "entries": [{
          "startedDateTime": "2026-11-20T09:41:00.123Z", "time": 150,
          "request": {"method": "GET", "url": "\#(url)", "httpVersion": "HTTP/1.1", "cookies": [],
                      "headers": [\#(headers.joined(separator: ", "))], "queryString": [], "headersSize": -1, "bodySize": 0},
          "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                       "headers": [{"name": "Content-Type", "value": "text/plain"}],
                       "content": {"size": \#(body.utf8.count), "mimeType": "text/plain", "text": "\#(body)"},
                       "redirectURL": "", "headersSize": -1, "bodySize": \#(body.utf8.count)},
          "cache": {}, "timings": {"send": 0, "wait": 150, "receive": 0}}]}}
        """#
}

/// The `.cassette()` trait: a cassette per test, named after it, beside its file (here in a
/// temporary folder given as `folder:`), replayed when it exists and recorded when the mode allows.
/// Each test runs the trait's scope itself, as Swift Testing would around its body.
@Suite("Cassette trait")
struct CassetteTraitTests {
    let folder: TemporaryFolder
    /// Plays the real API; cassettes record from it.
    let upstream = MockURLSession(stubs: StubRegistry("the real API", reporting: .disabled))

    init() throws {
        folder = try TemporaryFolder()
        upstream.stubs.stub(.get, "/users/{id}").respond(.computed { request in .text("user \(request.pathParameters["id"] ?? "")") })
    }

    func trait(_ name: String? = nil, mode: RecordMode) -> CassetteTrait {
        .cassette(name, mode: mode, upstream: upstream, folder: folder.url)
    }

    /// The trait without a mode, reading it from `environment`.
    func trait(readingTheModeFrom environment: [String: String]) -> CassetteTrait {
        var trait = CassetteTrait.cassette(upstream: upstream, folder: folder.url)
        trait.environment = environment
        return trait
    }

    /// Runs `body` inside `trait`'s scope for the running test (and case).
    func run(_ trait: CassetteTrait, _ body: @escaping @Sendable () async throws -> Void) async throws {
        try await trait.provideScope(for: try #require(Test.current), testCase: Test.Case.current) { try await body() }
    }

    /// Runs the test's body once in a mode that records: what a first run does.
    func recordUser(_ id: Int, name: String? = nil) async throws {
        try await run(trait(name, mode: .once)) {
            _ = try await HTTPClient(session: try CassetteSession.current).get(testURL("https://api.example.com/users/\(id)"))
        }
    }

    func fetchUser(_ id: Int, from session: CassetteSession) async throws -> String? {
        try await HTTPClient(session: session).get(testURL("https://api.example.com/users/\(id)")).text
    }

    func file(_ path: String) -> URL { folder.url.appendingPathComponent(path) }

    // MARK: Naming and modes

    @Test func recordsIntoACassetteNamedAfterTheSuiteAndTheTest() async throws {
        try await recordUser(1)

        let cassette = try Cassette(contentsOf: file("Cassettes/CassetteTraitTests.recordsIntoACassetteNamedAfterTheSuiteAndTheTest.json"))
        #expect(cassette.interactions.map(\.request.url) == ["https://api.example.com/users/1"])
    }

    @Test func replaysTheCassetteWithoutReachingTheNetwork() async throws {
        try await recordUser(1)
        let reachedBefore = upstream.requests.count

        try await run(trait(mode: .none)) {
            let answer = try await fetchUser(1, from: try CassetteSession.current)
            #expect(answer == "user 1")
        }

        #expect(upstream.requests.count == reachedBefore)
    }

    @Test func aGivenNameNamesTheCassetteWithOrWithoutItsExtension() async throws {
        try await recordUser(1, name: "profile")
        try await run(trait("profile.json", mode: .none)) {
            let cassette = try CassetteSession.current
            #expect(cassette.file == file("Cassettes/profile.json"))
            let answer = try await fetchUser(1, from: try CassetteSession.current)
            #expect(answer == "user 1")
        }
    }

    @Test func aMissingCassetteFailsTheTestBeforeItsBodyRunsWhenTheModeIsNone() async throws {
        let bodyRan = Locked(false)
        let error = await #expect(throws: CassetteError.self) {
            try await run(trait(mode: .none)) { bodyRan.withLock { $0 = true } }
        }
        guard case .unreadable(let path, let reason)? = error else { return }
        #expect(path == file("Cassettes/CassetteTraitTests.aMissingCassetteFailsTheTestBeforeItsBodyRunsWhenTheModeIsNone.json").path)
        #expect(reason.contains("HTTPCLIENT_RECORD_MODE=once"))
        #expect(!bodyRan.current)
    }

    @Test func theModeComesFromTheEnvironmentWhenTheTraitGivesNone() async throws {
        try await run(trait(readingTheModeFrom: ["HTTPCLIENT_RECORD_MODE": "once"])) {
            _ = try await fetchUser(2, from: try CassetteSession.current)
        }
        #expect(upstream.requests.map(\.path) == ["/users/2"])

        try await run(trait(readingTheModeFrom: [:])) {
            let cassette = try CassetteSession.current
            #expect(cassette.mode == RecordMode.none)
        }
    }

    @Test func anUnknownModeInTheEnvironmentFailsTheTestNamingIt() async throws {
        let error = await #expect(throws: CassetteError.self) {
            try await run(trait(readingTheModeFrom: ["HTTPCLIENT_RECORD_MODE": "replay"])) {}
        }
        #expect(error == .unknownRecordMode("replay"))
    }

    // MARK: Registry, verification, failures

    @Test func theCassettesRegistryIsCurrentForTheTestAndItsTasks() async throws {
        try await recordUser(1)
        try await run(trait(mode: .none)) {
            let stubs = try CassetteSession.current.stubs
            let current = await Task { StubRegistry.current }.value
            #expect(current === stubs)
        }
    }

    @Test func anUnusedStubOfTheTestsOwnFailsItWhenItEndsButUnusedRecordingsDoNot() async throws {
        try await recordUser(1)
        let recorded = Locked<[String]>([])
        try await withKnownIssue("the unused stub is reported when the test ends") {
            try await run(trait(mode: .none)) {
                try CassetteSession.current.stubs.stub(.get, "/never").respond(.status(204))
            }
        } matching: { issue in
            recorded.withLock { $0.append(issue.comments.map(\.rawValue).joined()) }
            return true
        }
        #expect(recorded.current.count == 1)
        #expect(recorded.current.first?.contains("1 stub was never requested") == true)
        #expect(recorded.current.first?.contains("/never") == true)
    }

    @Test func aRequestTheCassetteDoesNotHaveFailsTheTestAtItsLine() async throws {
        try await recordUser(1)
        let recorded = Locked<[(comment: String, line: Int?)]>([])
        try await withKnownIssue("the miss is recorded in this test") {
            try await run(trait(mode: .none)) {
                _ = try? await fetchUser(2, from: try CassetteSession.current)
            }
        } matching: { issue in
            recorded.withLock { $0.append((issue.comments.map(\.rawValue).joined(), issue.sourceLocation?.line)) }
            return true
        }
        #expect(recorded.current.count == 1)
        #expect(recorded.current.first?.comment.contains("GET https://api.example.com/users/2") == true)
        #expect(recorded.current.first?.line == Test.current?.sourceLocation.line)
    }

    @Test func outsideTheTraitThereIsNoCassette() {
        #expect(throws: TestCassetteError.noCassetteTrait) { try CassetteSession.current }
    }

    // MARK: Parallel tests and cases

    @Test(arguments: [1, 2]) func eachCaseOfAParameterizedTestRecordsIntoAFileOfItsOwn(id: Int) async throws {
        try await run(trait(mode: .once)) {
            let cassette = try CassetteSession.current(case: id)
            _ = try await fetchUser(id, from: cassette)
            #expect(
                cassette.file == file("Cassettes/CassetteTraitTests.eachCaseOfAParameterizedTestRecordsIntoAFileOfItsOwn(id_)/\(id).json"))
        }
        let cassette = try Cassette(
            contentsOf: file("Cassettes/CassetteTraitTests.eachCaseOfAParameterizedTestRecordsIntoAFileOfItsOwn(id_)/\(id).json"))
        #expect(cassette.interactions.map(\.request.url) == ["https://api.example.com/users/\(id)"])
    }

    @Test(arguments: [1]) func aCaseOfAParameterizedTestMustNameItsCassette(id: Int) async throws {
        try await run(trait(mode: .once)) {
            #expect(throws: TestCassetteError.caseNotNamed(test: "CassetteTraitTests.aCaseOfAParameterizedTestMustNameItsCassette(id:)")) {
                try CassetteSession.current
            }
        }
    }

    @Test(arguments: [1]) func aCaseCannotOpenTheCassetteOfAnotherCase(id: Int) async throws {
        try await run(trait(mode: .once)) {
            _ = try CassetteSession.current(case: id)
            #expect(throws: TestCassetteError.self) { try CassetteSession.current(case: id + 1) }
        }
    }

    @Test(arguments: ["a/b", "a_b", String(repeating: "x", count: 81)])
    func casesWhoseNamesAreNoSafeFileNameStillGetFilesOfTheirOwn(name: String) async throws {
        try await run(trait(mode: .once)) {
            let file = try CassetteSession.current(case: name).file.lastPathComponent
            switch name {
            case "a_b": #expect(file == "a_b.json")
            case "a/b": #expect(file.hasPrefix("a_b-") && file.hasSuffix(".json") && file.count == "a_b-12345678.json".count)
            default: #expect(file.hasPrefix(String(repeating: "x", count: 60) + "-") && file.count == 60 + 1 + 8 + 5)
            }
        }
    }

    @Test func twoTestsCannotRecordIntoOneFileAtTheSameTime() async throws {
        try await run(trait("shared", mode: .all)) {
            let error = await #expect(throws: TestCassetteError.self) { try await run(trait("shared", mode: .all)) {} }
            guard case .recordedByAnotherTest(let path, _, let otherTest)? = error else { return }
            #expect(path == file("Cassettes/shared.json").standardizedFileURL.path)
            #expect(otherTest == "CassetteTraitTests.twoTestsCannotRecordIntoOneFileAtTheSameTime()")
        }
    }

    @Test func aFileIsFreeToRecordIntoOnceTheTestThatRecordedItHasEnded() async throws {
        try await run(trait("shared", mode: .all)) {}
        try await run(trait("shared", mode: .all)) { _ = try await fetchUser(3, from: try CassetteSession.current) }
        #expect(try Cassette(contentsOf: file("Cassettes/shared.json")).interactions.count == 1)
    }

    @Test func testsThatOnlyReplayMayShareACassette() async throws {
        try await recordUser(1, name: "shared")
        try await run(trait("shared", mode: .none)) {
            try await run(trait("shared", mode: .none)) {
                let answer = try await fetchUser(1, from: try CassetteSession.current)
                #expect(answer == "user 1")
            }
        }
    }

    // MARK: Bad files

    @Test func aCassettePathThatIsADirectoryFailsTheTestNamingIt() async throws {
        let directory = file("Cassettes/CassetteTraitTests.aCassettePathThatIsADirectoryFailsTheTestNamingIt.json")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let error = await #expect(throws: CassetteError.self) { try await run(trait(mode: .none)) {} }
        #expect(error == .unreadable(file: directory.path, reason: "it is a directory, not a regular file"))
    }

    // MARK: Replay's archives

    func writeReplayArchive(_ name: String, _ text: String) throws {
        try FileManager.default.createDirectory(at: file("Replays"), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file("Replays/\(name).har"))
    }

    @Test func playsReplaysArchiveNamedAfterTheTestFunctionWhenThereIsNoCassette() async throws {
        try writeReplayArchive(
            "playsReplaysArchiveNamedAfterTheTestFunctionWhenThereIsNoCassette",
            replayArchive(url: "https://api.example.com/users/7", body: "Ada from Replay"))

        try await run(trait(mode: .none)) {
            let answer = try await fetchUser(7, from: try CassetteSession.current)
            #expect(answer == "Ada from Replay")
        }
        #expect(upstream.requests.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: file("Cassettes").path), "replaying writes nothing")
    }

    @Test("plays Replay's archive named after the display name")
    func playsReplaysArchiveNamedAfterTheDisplayName() async throws {
        try writeReplayArchive(
            "plays_Replay's_archive_named_after_the_display_name", replayArchive(url: "https://api.example.com/users/7", body: "Ada"))
        try await run(trait(mode: .none)) {
            let answer = try await fetchUser(7, from: try CassetteSession.current)
            #expect(answer == "Ada")
        }
    }

    @Test func aGivenNameNamesReplaysArchiveToo() async throws {
        try writeReplayArchive("fetchUser", replayArchive(url: "https://api.example.com/users/7", body: "Ada"))
        try await run(trait("fetchUser.har", mode: .none)) {
            let answer = try await fetchUser(7, from: try CassetteSession.current)
            #expect(answer == "Ada")
        }
    }

    @Test func theCassetteIsPlayedRatherThanReplaysArchive() async throws {
        try await recordUser(1, name: "profile")
        try writeReplayArchive("profile", replayArchive(url: "https://api.example.com/users/1", body: "from the archive"))
        try await run(trait("profile", mode: .none)) {
            let answer = try await fetchUser(1, from: try CassetteSession.current)
            #expect(answer == "user 1")
        }
    }

    @Test func recordingNewExchangesKeepsReplaysExchangesRedactedInTheCassette() async throws {
        try writeReplayArchive(
            "profile",
            replayArchive(url: "https://api.example.com/users/7", body: "Ada", requestHeaders: ["Authorization": "Bearer tok-7a8b9c"]))

        try await run(trait("profile", mode: .newEpisodes)) {
            let cassette = try CassetteSession.current
            let archived = try await fetchUser(7, from: cassette)
            let recorded = try await fetchUser(8, from: cassette)
            #expect(archived == "Ada")
            #expect(recorded == "user 8")
        }

        let text = try String(contentsOf: file("Cassettes/profile.json"), encoding: .utf8)
        let cassette = try Cassette(contentsOf: file("Cassettes/profile.json"))
        #expect(cassette.interactions.map(\.request.url) == ["https://api.example.com/users/7", "https://api.example.com/users/8"])
        #expect(!text.contains("tok-7a8b9c"))
        #expect(upstream.requests.map(\.path) == ["/users/8"])
    }

    @Test func recordingEverythingAgainLeavesReplaysArchiveUnplayed() async throws {
        try writeReplayArchive("profile", replayArchive(url: "https://api.example.com/users/1", body: "from the archive"))
        try await run(trait("profile", mode: .all)) {
            let answer = try await fetchUser(1, from: try CassetteSession.current)
            #expect(answer == "user 1")
        }
        #expect(upstream.requests.map(\.path) == ["/users/1"])
    }

    @Test func aMalformedReplayArchiveFailsTheTestNamingTheFile() async throws {
        try writeReplayArchive("profile", #"{"log": {"entries": [{"request": {}}]}}"#)
        let error = await #expect(throws: CassetteError.self) { try await run(trait("profile", mode: .none)) {} }
        guard case .invalidHAR(let path, _)? = error else { return }
        #expect(path == file("Replays/profile.har").path)
    }
}
