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
        get throws {
            // The test bundle lives in the build folder, and so does httpc (a dependency of this target).
            var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            if directory.pathExtension == "xctest" { directory.deleteLastPathComponent() }
            for candidate in [directory, directory.deletingLastPathComponent()] {
                let binary = candidate.appendingPathComponent("httpc")
                if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
            }
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "httpc not found near \(directory.path)"])
        }
    }

    func httpc(_ arguments: String..., environment: [String: String] = [:]) throws -> Run {
        try run(arguments, environment: environment)
    }

    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let process = Process()
        process.executableURL = try Self.binary
        process.arguments = arguments
        process.currentDirectoryURL = Self.root
        process.environment = ProcessInfo.processInfo.environment
            .filter { !$0.key.hasPrefix("HTTPCLIENT_") }
            .merging(environment) { _, new in new }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self), errors: String(decoding: err, as: UTF8.self))
    }

    @Test func theReadmeCommandAnswersFromTheBundledFixtures() throws {
        let run = try httpc("GET", "https://api.example.com/users/1", "--fixtures", Self.fixtures)
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("HTTP/1.1 200 OK\n\n{\n"))
        #expect(run.output.contains(#""name" : "Ada Lovelace""#))
        #expect(run.errors.isEmpty)
    }

    @Test func includeHeadersAndPostJSON() throws {
        let run = try httpc("POST", "https://api.example.com/users", "--json", #"{"name":"Grace"}"#, "-i", "--fixtures", Self.fixtures)
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("HTTP/1.1 201 Created\nContent-Type: application/json\nLocation: /users/4\n\n"))
    }

    @Test func aStatusOutside2xxPrintsTheBodyAndExitsNonZeroWithAReason() throws {
        let run = try httpc("https://api.example.com/users/99", "--fixtures", Self.fixtures)
        #expect(run.status == 1)
        #expect(run.output.contains(#""error" : "no such user""#))
        #expect(run.errors == "httpc: HTTP 404 from https://api.example.com/users/99\n")
    }

    @Test func aMissPrintsTheFileNamesItLookedFor() throws {
        let run = try httpc("https://api.example.com/users/7", "--fixtures", Self.fixtures)
        #expect(run.status == 3)
        #expect(run.output.isEmpty)
        #expect(run.errors.hasPrefix("httpc: nothing answers GET https://api.example.com/users/7: no file in "))
        #expect(run.errors.contains("GET|-users-7.http\n         GET|-users-7.json"))
    }

    @Test func theEnvironmentVariableStubsTheBinaryWithNoFlag() throws {
        let run = try httpc("https://api.example.com/users?page=2", environment: ["HTTPCLIENT_FIXTURES": Self.fixtures])
        #expect(run.status == 0)
        #expect(run.output.contains("Katherine Johnson"))
    }

    @Test func aCassetteReplaysAndABadRecordModeIsRefused() throws {
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("c.json")
        try Data(#"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "https://h/s", "headers": []}, "response": {"status": 200, "headers": [["Content-Type", "text/plain"]], "body": {"text": "from the cassette"}}, "duration": 0, "recordedAt": "2026-11-22T00:00:00Z"}]}"#.utf8)
            .write(to: file)
        let run = try httpc("https://h/s", "--cassette", file.path)
        #expect(run.status == 0)
        #expect(run.output == "HTTP/1.1 200 OK\n\nfrom the cassette\n")

        let bad = try httpc("https://h/s", "--cassette", file.path, environment: ["HTTPCLIENT_RECORD_MODE": "sometimes"])
        #expect(bad.status == 3)
        #expect(bad.errors.contains("Unknown record mode \"sometimes\""))
    }

    @Test("usage errors say what was wrong", arguments: [
        (["--fixtures"], "--fixtures needs a value"),
        (["GET", "notaurl"], "\"notaurl\" is not an http or https URL"),
        (["-H", "NoColon", "https://h/"], "the header \"NoColon\" is not of the form 'Name: value'"),
        (["https://h/", "--json", "{bad"], "--json: {bad is not valid JSON"),
        (["https://h/", "--record-mode", "all"], "--record-mode needs --cassette"),
        (["https://h/", "--wat"], "unknown option --wat"),
    ])
    func usageErrors(arguments: [String], message: String) throws {
        let process = try run(arguments)
        #expect(process.status == 2)
        #expect(process.errors.hasPrefix("httpc: \(message)\nusage: httpc"))
    }
}
