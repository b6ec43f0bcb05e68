import Foundation
import Testing

/// httpc's transfers, run as a user would: what `-o` and `-T` refuse before anything is sent,
/// and what httpc says of a response cut short or interrupted (over a loopback server).
extension HttpcTests {
    // MARK: Files that -T and -o cannot use: exit 2, nothing sent, nothing touched

    @Test(
        "-T sends a regular file only, refused before anything is sent",
        arguments: [
            ("folder", "-T folder is a directory: -T sends a regular file only"),
            ("fifo", "-T fifo is a FIFO (named pipe): -T sends a regular file only"),
            ("/dev/zero", "-T /dev/zero is a character device: -T sends a regular file only"),
            ("/dev/stdin", "-T /dev/stdin is a FIFO (named pipe): -T sends a regular file only"),
            ("missing.bin", "-T missing.bin: no such file"),
            ("-", "-T -: reading the body from the standard input is not supported; save it to a file and give its path"),
        ])
    func uploadSourcesThatAreNotRegularFiles(source: String, message: String) async throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("folder"), withIntermediateDirectories: false)
        #expect(mkfifo(folder.url.appendingPathComponent("fifo").path, 0o600) == 0)
        let server = try LoopbackServer { _ in LoopbackServer.response("stored") }
        defer { server.stop() }
        let run = try await run([server.url.appendingPathComponent("upload").absoluteString, "-T", source], in: folder.url)
        #expect(run.status == 2)
        #expect(run.errors == "httpc: \(message)\n")
        #expect(server.requests.isEmpty)
    }

    @Test func outputIntoAFolderWritesANewFileNamedFromTheURLAndKeepsTheFolder() async throws {
        let folder = try TemporaryFolder()
        try folder.write("keep.txt", "kept")
        let run = try await httpc("https://api.example.com/users/1", "--fixtures", Self.fixtures, "-o", folder.url.path)
        #expect(run.status == 0)
        #expect(try String(contentsOf: folder.url.appendingPathComponent("1"), encoding: .utf8).contains("Ada Lovelace"))
        #expect(try String(contentsOf: folder.url.appendingPathComponent("keep.txt"), encoding: .utf8) == "kept")
    }

    @Test func outputToANewFileOfOneCharacterInTheWorkingFolder() async throws {
        let folder = try TemporaryFolder()
        let run = try await run(["https://api.example.com/users/1", "--fixtures", Self.fixtures, "-o", "u"], in: folder.url)
        #expect(run.status == 0)
        #expect(try String(contentsOf: folder.url.appendingPathComponent("u"), encoding: .utf8).contains("Ada Lovelace"))
    }

    @Test func outputThroughALinkReplacesTheFileItPointsToAndKeepsTheLink() async throws {
        let folder = try TemporaryFolder()
        try folder.write("target.json", "previous")
        try FileManager.default.createSymbolicLink(
            atPath: folder.url.appendingPathComponent("link").path, withDestinationPath: "target.json")
        let run = try await run(["https://api.example.com/users/1", "--fixtures", Self.fixtures, "-o", "link"], in: folder.url)
        #expect(run.status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder.url.appendingPathComponent("link").path) == "target.json")
        #expect(try String(contentsOf: folder.url.appendingPathComponent("target.json"), encoding: .utf8).contains("Ada Lovelace"))
    }

    @Test func outputDotWritesIntoTheWorkingFolderAndRemovesNothing() async throws {
        let folder = try TemporaryFolder()
        try folder.write("keep.txt", "kept")
        let run = try await run(["https://api.example.com/users/1", "--fixtures", Self.fixtures, "-o", "."], in: folder.url)
        #expect(run.status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["1", "keep.txt"])
    }

    @Test func outputIntoAFolderNeverReplacesAFileOfTheSameName() async throws {
        let folder = try TemporaryFolder()
        try folder.write("1", "mine")
        let run = try await run(["https://api.example.com/users/1", "--fixtures", Self.fixtures, "-o", "."], in: folder.url)
        #expect(run.status == 2)
        #expect(
            run.errors == "httpc: -o .: ./1 already exists; into a folder, -o writes a new file only (give the file's path to replace it)\n"
        )
        #expect(try String(contentsOf: folder.url.appendingPathComponent("1"), encoding: .utf8) == "mine")
    }

    @Test(
        "-o into a folder refuses a URL whose last segment cannot name a file there",
        arguments: [
            ("users/", "ends in no file name"), ("%2e%2e", "ends in \"%2e%2e\""), ("a%2Fb", "ends in \"a%2Fb\""), (".", "ends in \".\""),
            ("a%00b", "ends in \"a%00b\""), ("a%0Ab", "ends in \"a%0Ab\""), (String(repeating: "a", count: 256), "ends in \"aaaa"),
        ])
    func outputIntoAFolderRefusesNamesThatLeaveIt(path: String, reason: String) async throws {
        let folder = try TemporaryFolder()
        let run = try await run(["https://api.example.com/" + path, "--fixtures", Self.fixtures, "-o", "."], in: folder.url)
        #expect(run.status == 2)
        #expect(run.errors.hasPrefix("httpc: -o into a folder names the file from the URL, but the URL's path \(reason)"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }

    @Test func outputSlashIsAFolderLikeAnyOther() async throws {
        let run = try await httpc("https://api.example.com/users/", "--fixtures", Self.fixtures, "-o", "/")
        #expect(run.status == 2)
        #expect(run.errors.hasPrefix("httpc: -o into a folder names the file from the URL, but the URL's path ends in no file name"))
    }

    @Test(
        "-o refuses what is not a regular file, or a new one in an existing folder",
        arguments: [
            ("", "-o was given an empty file name"),
            ("dangling", "-o dangling is a symbolic link to nothing (nowhere): -o does not create a file through a link"),
            ("fifo", "-o fifo is a FIFO (named pipe): -o writes a regular file only"),
            ("/dev/null", "-o /dev/null is a character device: -o writes a regular file only"),
            ("missing/out.json", "-o: the folder missing does not exist"),
            ("missing/", "-o missing/: no such folder"),
            ("keep.txt/out.json", "-o: keep.txt is not a folder"),
        ])
    func outputDestinationsThatCannotBeWritten(destination: String, message: String) async throws {
        let folder = try TemporaryFolder()
        try folder.write("keep.txt", "kept")
        try FileManager.default.createSymbolicLink(
            atPath: folder.url.appendingPathComponent("dangling").path, withDestinationPath: "nowhere")
        #expect(mkfifo(folder.url.appendingPathComponent("fifo").path, 0o600) == 0)
        let server = try LoopbackServer { _ in LoopbackServer.response("the body") }
        defer { server.stop() }
        let run = try await run([server.url.appendingPathComponent("out.json").absoluteString, "-o", destination], in: folder.url)
        #expect(run.status == 2)
        #expect(run.errors == "httpc: \(message)\n")
        #expect(server.requests.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["dangling", "fifo", "keep.txt"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder.url.appendingPathComponent("dangling").path) == "nowhere")
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
    }

    // MARK: A response that started but did not complete: exit 4, what arrived named

    @Test(
        "a body cut short says what arrived and exits 4",
        arguments: [[], ["--stream"], ["-o", "out.txt"]])
    func aBodyCutShortNamesWhatArrived(options: [String]) async throws {
        let folder = try TemporaryFolder()
        let server = try LoopbackServer { _ in LoopbackServer.response(String(repeating: "a", count: 100), declaredLength: 200) }
        defer { server.stop() }
        let url = server.url.appendingPathComponent("export").absoluteString + "?api_key=k-1234"
        let run = try await run([url] + options, in: folder.url)
        #expect(run.status == 4)
        let status = options.first == "-o" ? "" : "HTTP 200, "
        #expect(
            run.errors.hasPrefix(
                "httpc: the response from \(server.url.absoluteString)/export?api_key=REDACTED started but did not complete "
                    + "(\(status)100 of 200 bytes of the body received): "))
        #expect(!run.errors.contains("before a response arrived"))
        #expect(!run.errors.contains("k-1234"))
        #expect(run.errors.filter { $0 == "\n" }.count == 1)
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("out.txt").path))
    }

    @Test func outputIntoAFolderThatDisappearsWhileTheBodyComesExits4() async throws {
        let folder = try TemporaryFolder()
        let destination = folder.url.appendingPathComponent("gone", isDirectory: true)
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: false)
        let server = try LoopbackServer { _ in
            try? FileManager.default.removeItem(at: destination)
            return LoopbackServer.response("the body")
        }
        defer { server.stop() }
        let run = try await run([server.url.appendingPathComponent("report.txt").absoluteString, "-o", "gone/report.txt"], in: folder.url)
        #expect(run.status == 4)
        #expect(run.errors.hasPrefix("httpc: the response from \(server.url.absoluteString)/report.txt started but did not complete (8 "))
        #expect(run.errors.contains("gone/report.txt"))
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    // MARK: Interrupted: exit 130, what arrived named

    @Test(
        "an interrupt ends the transfer and says what had arrived",
        arguments: [([], "HTTP 200, "), (["--stream"], "HTTP 200, "), (["-o", "out.txt"], "")])
    func anInterruptEndsTheTransferAndSaysWhatArrived(options: [String], status: String) throws {
        let folder = try TemporaryFolder()
        try folder.write("out.txt", "previous")
        let bodyWritten = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let server = try LoopbackServer(
            respond: { _ in LoopbackServer.response(String(repeating: "a", count: 100), declaredLength: 200) },
            afterWriting: {
                bodyWritten.signal()
                _ = release.wait(timeout: .now() + 600)
            })
        defer {
            release.signal()
            server.stop()
        }
        let process = try start([server.url.appendingPathComponent("export").absoluteString] + options, in: folder.url)
        #expect(bodyWritten.wait(timeout: .now() + 600) == .success)
        // The bytes are on their way; httpc may not have read them yet when the signal comes.
        process.signal(SIGINT)
        let run = try finish(process)
        #expect(run.status == 130)
        // How much httpc had read when the signal came is up to the scheduler: the head, or not
        // yet; some of the body, or none.
        let url = server.url.absoluteString + "/export"
        let before = "httpc: interrupted before a response from \(url) arrived\n"
        let started = "httpc: interrupted: the response from \(url) had started (\(status)"
        #expect(run.errors == before || (run.errors.hasPrefix(started) && run.errors.hasSuffix(" of 200 bytes of the body received)\n")))
        #expect(try String(contentsOf: folder.url.appendingPathComponent("out.txt"), encoding: .utf8) == "previous")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["out.txt"])
    }
}
