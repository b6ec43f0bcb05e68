import Foundation
import Testing

/// Runs the `httpc` binary that `swift test` built beside the test bundle, as a user would.
@Suite("httpc")
struct HttpcTests {
    struct Run {
        let status: Int32
        let output: String
        let errors: String
    }

    static let root = ReadmeIsCompiledTests.root
    static let fixtures = root.appendingPathComponent("Examples/Fixtures").path

    static var binary: URL {
        get throws { try builtExecutable("httpc") }
    }

    /// The executable `name` of this package (httpc, AppUnderTest), built beside this target.
    static func builtExecutable(_ name: String) throws -> URL {
        // Each is a dependency of this target, so SwiftPM builds it into the same products
        // folder as this target's resource bundle, whatever the platform, the scratch path
        // or the process running the tests (xctest, swiftpm-testing-helper or the bundle
        // itself); the process's own path is the fallback.
        var executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if executable.pathExtension == "xctest" { executable.deleteLastPathComponent() }
        let folders = [Bundle.module.bundleURL.deletingLastPathComponent(), executable, executable.deletingLastPathComponent()]
        for folder in folders {
            let binary = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "\(name) not found in \(folders.map(\.path))"])
    }

    @Test func theBinaryIsFoundBesideTheTestResourcesNotThroughTheRunningProcess() throws {
        // On macOS the process is xctest or swiftpm-testing-helper, outside the build folder.
        let besideResources = Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("httpc")
        #expect(try Self.binary == besideResources)
    }

    func httpc(_ arguments: String..., environment: [String: String] = [:]) async throws -> Run {
        try await run(arguments, environment: environment)
    }

    /// Runs httpc in `directory` (the package's root by default), its standard input a pipe
    /// that stays open: a command that read it would hang.
    /// Waits on a thread of its own, leaving the threads the test tasks share to the others.
    func run(_ arguments: [String], environment: [String: String] = [:], in directory: URL = Self.root) async throws -> Run {
        try await offThePool { [self] in try finish(try start(arguments, environment: environment, in: directory)) }
    }

    /// Starts httpc as ``run(_:environment:in:)`` does, for a test to act while it runs.
    func start(_ arguments: [String], environment: [String: String] = [:], in directory: URL = Self.root) throws -> LaunchedProcess {
        try LaunchedProcess(try Self.binary, arguments, environment: environment, in: directory)
    }

    /// Waits for a started httpc to end and reads what it printed.
    func finish(_ process: LaunchedProcess) throws -> Run {
        let run = process.finish()
        return Run(status: run.status, output: String(decoding: run.output, as: UTF8.self), errors: run.errors)
    }

    @Test func theReadmeCommandAnswersFromTheBundledFixtures() async throws {
        let run = try await httpc("GET", "https://api.example.com/users/1", "--fixtures", Self.fixtures)
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("HTTP/1.1 200 OK\n\n{\n"))
        #expect(run.output.contains(#""name" : "Ada Lovelace""#))
        #expect(run.errors.isEmpty)
    }

    @Test func includeHeadersAndPostJSON() async throws {
        let run = try await httpc(
            "POST", "https://api.example.com/users", "--json", #"{"name":"Grace"}"#, "-i", "--fixtures", Self.fixtures)
        #expect(run.status == 0)
        // The length a server would send with the fixture's body, as in process.
        #expect(run.output.hasPrefix("HTTP/1.1 201 Created\nContent-Length: 27\nContent-Type: application/json\nLocation: /users/4\n\n"))
    }

    @Test func aStatusOutside2xxPrintsTheBodyAndExitsNonZeroWithAReason() async throws {
        let run = try await httpc("https://api.example.com/users/99", "--fixtures", Self.fixtures)
        #expect(run.status == 1)
        #expect(run.output.contains(#""error" : "no such user""#))
        #expect(run.errors == "httpc: HTTP 404 from https://api.example.com/users/99\n")
    }

    @Test func aMissPrintsTheFileNamesItLookedFor() async throws {
        let run = try await httpc("https://api.example.com/users/7", "--fixtures", Self.fixtures)
        #expect(run.status == 3)
        #expect(run.output.isEmpty)
        #expect(run.errors.hasPrefix("httpc: nothing answers GET https://api.example.com/users/7: no file in "))
        #expect(run.errors.contains("GET|-users-7.http\n         GET|-users-7.json"))
    }

    @Test func theEnvironmentVariableStubsTheBinaryWithNoFlag() async throws {
        let run = try await httpc("https://api.example.com/users?page=2", environment: ["HTTPCLIENT_FIXTURES": Self.fixtures])
        #expect(run.status == 0)
        #expect(run.output.contains("Katherine Johnson"))
    }

    @Test func aCassetteReplaysAndABadRecordModeIsRefused() async throws {
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("c.json")
        try Data(
            #"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "https://h/s", "headers": []}, "response": {"status": 200, "headers": [["Content-Type", "text/plain"]], "body": {"text": "from the cassette"}}, "duration": 0, "recordedAt": "2026-11-22T00:00:00Z"}]}"#
                .utf8
        )
        .write(to: file)
        let run = try await httpc("https://h/s", "--cassette", file.path)
        #expect(run.status == 0)
        #expect(run.output == "HTTP/1.1 200 OK\n\nfrom the cassette\n")

        let bad = try await httpc("https://h/s", "--cassette", file.path, environment: ["HTTPCLIENT_RECORD_MODE": "sometimes"])
        #expect(bad.status == 3)
        #expect(bad.errors.contains("Unknown record mode \"sometimes\""))
    }

    @Test(
        "usage errors say what was wrong",
        arguments: [
            (["--fixtures"], "--fixtures needs a value"),
            (["GET", "notaurl"], "\"notaurl\" is not an http or https URL"),
            (["-H", "NoColon", "https://h/"], "the header \"NoColon…\" given to -H is not of the form 'Name: value'"),
            // A credential with its colon missing is not printed.
            (
                ["--header", "Authorization Bearer tok-31337", "https://h/"],
                "the header \"Authorization…\" given to --header is not of the form 'Name: value'"
            ),
            (["https://h/", "--json", "{bad"], "--json: {bad is not valid JSON"),
            (["https://h/", "--record-mode", "all"], "--record-mode needs --cassette"),
            (["https://h/", "--wat"], "unknown option --wat (use -- before a URL or method that starts with \"-\")"),
            (["GET /x", "https://h/"], "the method \"GET…\" is not an HTTP method (a token such as GET, no spaces)"),
            // What follows the method's first wrong byte is not printed: it may be a header line.
            (
                ["GET\r\nAuthorization: Bearer tok-31337", "https://h/"],
                "the method \"GET…\" is not an HTTP method (a token such as GET, no spaces)"
            ),
            (
                ["-H", "Authorization: Bearer tok-31337\r\nX-Injected: 1", "https://h/"],
                "the header \"Authorization\" given to -H cannot be sent: its value holds a carriage return (CR) at byte 17 of 31; "
                    + "a header value may hold no control character but a tab"
            ),
            (["https://h/", "--fixtures", "a", "--fixtures", "b"], "--fixtures is given twice; give it once"),
            (["https://h/", "--cassette", "a", "--cassette", "b"], "--cassette is given twice; give it once"),
            (
                ["https://h/", "--cassette", "a", "--record-mode", "all", "--record-mode", "once"],
                "--record-mode is given twice; give it once"
            ),
            (["https://h/", "-d", "@/nonexistent/body.json"], "/nonexistent/body.json: cannot be read (No such file or directory)"),
            (["https://h/", "-d", "@/dev/zero"], "-d @/dev/zero: more than 64 MiB; send a large file with -T"),
            (["https://h/", "-d", "@Sources"], "Sources: cannot be read (Is a directory)"),
            (["--", "-h"], "\"-h\" is not an http or https URL"),
            (["https://h/", "-T", "Package.swift", "-d", "x"], "use -T or -d, not both"),
            (["https://h/", "--json", "{}", "-T", "Package.swift"], "use -T or --json, not both"),
            (["https://h/", "-T", "Package.swift", "-o", "out"], "use -T or -o, not both"),
            (["https://h/", "--stream", "--upload-file", "Package.swift"], "use --upload-file or --stream, not both"),
            (["https://h/", "-o", "out", "--stream"], "use -o or --stream, not both"),
            (["https://h/", "--fixtures", "a", "--cassette", "b"], "use --fixtures or --cassette, not both"),
            (["https://h/", "-d", "a", "--json", "{}"], "use -d or --json, not both"),
            (["https://h/", "-d", "a", "-d", "b"], "-d is given twice; give it once"),
            (["https://h/", "-d", "a", "--data", "b"], "use -d or --data, not both"),
            (["https://h/", "-o", "a", "-o", "b"], "-o is given twice; give it once"),
            (["https://h/", "-o", "a", "--output", "b"], "use -o or --output, not both"),
            (["https://h/", "-T", "a", "-T", "b"], "-T is given twice; give it once"),
        ])
    func usageErrors(arguments: [String], message: String) async throws {
        let process = try await run(arguments)
        #expect(process.status == 2)
        #expect(process.errors.hasPrefix("httpc: \(message)\nusage: httpc"))
    }

    @Test func outputWritesTheBodyToTheFileAndDrawsNoProgressWhenStderrIsNotATerminal() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("httpc-output-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try await httpc("GET", "https://api.example.com/users/1", "--fixtures", Self.fixtures, "-o", file.path)
        #expect(run.status == 0)
        #expect(run.output == "HTTP/1.1 200 OK\n\n")
        #expect(run.errors.isEmpty)
        let body = try String(contentsOf: file, encoding: .utf8)
        #expect(body.contains("\"name\": \"Ada Lovelace\""))
    }

    @Test func uploadFileSendsTheFileAsTheBody() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("httpc-upload-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"name": "Grace"}"#.utf8).write(to: file)
        let run = try await httpc(
            "POST", "https://api.example.com/users", "-T", file.path, "-H", "Content-Type: application/json", "--fixtures", Self.fixtures)
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("HTTP/1.1 201 Created"))
        #expect(run.output.contains("\"name\" : \"Grace\""))
    }

    @Test func streamPrintsTheHeadThenTheBodyAsItComes() async throws {
        let run = try await httpc("GET", "https://api.example.com/users/1", "--fixtures", Self.fixtures, "--stream")
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("HTTP/1.1 200 OK\n\n{\"id\": 1, \"name\": \"Ada Lovelace\""))
    }

    @Test func helpIsAnOptionOnlyWhenItIsAnArgumentOfItsOwn() async throws {
        let help = try await httpc("https://h/x", "--help")
        #expect(help.status == 0)
        #expect(help.output.contains("--record-mode MODE"))
        #expect(help.output.contains("Exit status: 0 for a 2xx response"))
        // Here --help is the value of -d: the body sent, not a request for help.
        let body = try await httpc("POST", "https://api.example.com/nothing", "-d", "--help", "--fixtures", Self.fixtures)
        #expect(body.status == 3)
        #expect(!body.output.contains("usage"))
        #expect(body.errors.hasPrefix("httpc: nothing answers POST https://api.example.com/nothing"))
    }

    @Test func doubleDashEndsTheOptions() async throws {
        let run = try await httpc("--fixtures", Self.fixtures, "--", "GET", "https://api.example.com/users/1")
        #expect(run.status == 0)
        #expect(run.output.contains("Ada Lovelace"))
    }

    @Test(
        "file errors are one line naming the file and the system's reason",
        arguments: [
            (
                ["https://h/x", "--fixtures", "/nonexistent/folder"],
                "httpc: /nonexistent/folder: the fixture folder does not exist or is not a directory.\n"
            ),
            (
                ["https://h/x", "--cassette", "/nonexistent/c.json"],
                "httpc: /nonexistent/c.json: the cassette cannot be read (there is no cassette here; record it first with record mode once "
                    + "(HTTPCLIENT_RECORD_MODE=once, or httpc --record-mode once)).\n"
            ),
        ])
    func fileErrors(arguments: [String], expected: String) async throws {
        let run = try await run(arguments)
        #expect(run.status == 3)
        #expect(run.errors == expected)
    }

    @Test func aBrokenCassetteOrFixtureIsOneLineWithTheFileAndLine() async throws {
        let folder = try TemporaryFolder()
        let cassette = folder.url.appendingPathComponent("c.json")
        try Data(
            #"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "https://h/s", "headers": []}, "response": {"status": 0, "headers": []}, "duration": 0, "recordedAt": "2026-11-22T00:00:00Z"}]}"#
                .utf8
        )
        .write(to: cassette)
        let broken = try await httpc("https://h/s", "--cassette", cassette.path)
        #expect(broken.status == 3)
        #expect(broken.errors == "httpc: \(cassette.path): interaction 1: status 0 is not in 100...599.\n")

        try folder.write("GET|-bad.http", "HTTP/1.1 200 OK\nX Bad: 1\n\n")
        let fixture = try await httpc("https://h/bad", "--fixtures", folder.url.path)
        #expect(fixture.status == 3)
        #expect(fixture.errors.hasPrefix("httpc: \(folder.url.path)/GET|-bad.http:2: the header name \"X Bad\" is not a token"))
        #expect(fixture.errors.filter { $0 == "\n" }.count == 1)
    }

    @Test func messagesHideCredentialsInTheURL() async throws {
        let run = try await httpc("https://api.example.com/users/99?api_key=k-1234", "--fixtures", Self.fixtures)
        #expect(!run.errors.contains("k-1234"))
        #expect(run.errors.contains("api_key=REDACTED"))
    }

    @Test func messagesHideThePasswordOfTheURLsUserInfo() async throws {
        let status = try await httpc("https://alice:pa55word@api.example.com/users/99", "--fixtures", Self.fixtures)
        #expect(status.errors == "httpc: HTTP 404 from https://alice:REDACTED@api.example.com/users/99\n")
        let miss = try await httpc("https://alice:pa55word@api.example.com/users/7", "--fixtures", Self.fixtures)
        #expect(miss.errors.hasPrefix("httpc: nothing answers GET https://alice:REDACTED@api.example.com/users/7: "))
        // Refused before anything is sent (nothing listens on port 1 of the loopback interface).
        let refused = try await httpc("http://alice:pa55word@127.0.0.1:1/x")
        #expect(refused.status == 3)
        #expect(refused.errors.contains("http://alice:REDACTED@127.0.0.1:1/x"))
        for run in [status, miss, refused] { #expect(!run.errors.contains("pa55word") && !run.output.contains("pa55word")) }
    }

    // MARK: Help

    @Test func theSynopsisListsEveryOptionTheHelpDescribes() async throws {
        let help = try await httpc("--help").output
        let sections = help.components(separatedBy: "\n\n")
        let synopsis = try #require(sections.first)
        let described = try #require(sections.dropFirst().first).split(separator: "\n").compactMap { line in
            line.split(separator: " ").first.flatMap {
                $0.hasPrefix("-") ? String($0).trimmingCharacters(in: CharacterSet(charactersIn: ",")) : nil
            }
        }
        #expect(described.count == 12)
        let words = Set(synopsis.split(whereSeparator: { " []|\n".contains($0) }).map(String.init))
        for option in described {
            #expect(words.contains(option), "\(option) is not in the synopsis")
        }
    }

    @Test func theHelpDocumentsTheExitStatusesTheseTestsCheck() async throws {
        let help = try await httpc("--help").output
        let paragraph = try #require(help.range(of: "Exit status:").map { help[$0.lowerBound...] })
        // A status is a number followed by "for" or "when": "1 for another status".
        let words = paragraph.split(whereSeparator: \.isWhitespace).map(String.init)
        let statuses = zip(words, words.dropFirst()).compactMap { ["for", "when"].contains($1) ? Int($0) : nil }
        // 0, 1, 2 and 3: the tests above; 4: the responses cut short below; 130: the interrupts.
        #expect(statuses == [0, 1, 2, 3, 4, 130])
    }
}
