import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient

/// A folder of its own for one test, removed with everything in it when the test is done.
final class ScratchFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("transfer-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Writes `contents` to `name` and returns its URL.
    @discardableResult
    func write(_ contents: String, to name: String) throws -> URL {
        let file = file(name)
        try Data(contents.utf8).write(to: file)
        return file
    }

    /// The names in the folder, sorted: what a test compares to see nothing was left behind.
    var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }
}

@Suite("Download destinations are never destroyed")
struct DownloadDestinationTests {
    private func client(answering body: String = "new body", status: Int = 200) -> (HTTPClient, Stub) {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "https://h/report").respond(.text(body, status: status)).allowingUnused()
        return (HTTPClient(session: MockURLSession(stubs: stubs)), stub)
    }

    @Test func aDirectoryDestinationIsRefusedNamingItAndKeepsEverythingInIt() async throws {
        let folder = try ScratchFolder()
        let directory = folder.file("reports")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        try Data("keep me".utf8).write(to: directory.appendingPathComponent("inside.txt"))
        let (client, stub) = client()

        let error = await #expect(throws: HTTPClientError.self) { try await client.download(.get("https://h/report"), to: directory) }

        guard case .file(let fileError) = error else {
            Issue.record("expected a file error, got \(String(describing: error))")
            return
        }
        #expect(fileError.problem == .notARegularFile(.directory))
        #expect(fileError.path == directory.path)
        #expect(error?.description.contains("\(directory.path) is a directory") == true)
        #expect(try String(contentsOf: directory.appendingPathComponent("inside.txt"), encoding: .utf8) == "keep me")
        #expect(stub.callCount == 0)
    }

    /// `-o ""` from an unset variable: the working directory. Asked of the check itself, which
    /// writes nothing: a download that got past it would replace the working directory (this
    /// package's checkout, when the tests run).
    @Test func theWorkingDirectoryAsDestinationIsRefused() throws {
        let workingDirectory = URL(fileURLWithPath: "")
        #expect(
            throws: TransferFileError(.downloadDestination, path: workingDirectory.path, problem: .notARegularFile(.directory))
        ) {
            try TransferFiles.replaceableFile(at: workingDirectory)
        }
    }

    /// `path` ignores the scheme: `https://h/x` would have been written to `/x` on this machine.
    /// The URLs' paths lead into a scratch folder, so that a regression writes nothing elsewhere.
    @Test(arguments: ["https", "http", "ftp"])
    func aDestinationThatIsNotAFileURLIsRefusedBeforeAnythingIsSent(scheme: String) async throws {
        let folder = try ScratchFolder()
        let destination = "\(scheme)://example.com\(folder.file("report").path)"
        let url = try #require(URL(string: destination))
        let (client, stub) = client()

        let error = await #expect(throws: HTTPClientError.self) { try await client.download(.get("https://h/report"), to: url) }

        #expect(
            (error?.underlyingError as? TransferFileError)
                == TransferFileError(.downloadDestination, path: destination, problem: .notAFileURL))
        #expect(error?.description.contains("\(destination) is not the URL of a file") == true)
        #expect(stub.callCount == 0)
        #expect(folder.names.isEmpty)
    }

    /// `path` drops the `/` of `notes.txt/`: the regular file `notes.txt` was replaced.
    @Test func aDestinationWrittenAsAFolderIsNotTakenForTheFileOfThatName() async throws {
        let folder = try ScratchFolder()
        let file = try folder.write("keep me", to: "notes.txt")
        let written = URL(fileURLWithPath: file.path + "/")
        let (client, stub) = client()

        let error = await #expect(throws: HTTPClientError.self) { try await client.download(.get("https://h/report"), to: written) }

        #expect((error?.underlyingError as? TransferFileError)?.problem == .notAFileURL)
        #expect(try String(contentsOf: file, encoding: .utf8) == "keep me")
        #expect(stub.callCount == 0)
    }

    @Test func aDestinationInAMissingFolderIsRefusedBeforeAnythingIsSent() async throws {
        let folder = try ScratchFolder()
        let destination = folder.file("missing/report.pdf")
        let (client, stub) = client()

        let error = await #expect(throws: HTTPClientError.self) { try await client.download(.get("https://h/report"), to: destination) }

        #expect((error?.underlyingError as? TransferFileError)?.problem == .missingFolder)
        #expect(error?.description.contains(destination.path) == true)
        #expect(stub.callCount == 0)
        #expect(folder.names.isEmpty)
    }

    @Test func aDestinationInsideAFileIsRefusedAsAMissingFolder() throws {
        let folder = try ScratchFolder()
        let file = try folder.write("keep me", to: "notes.txt")

        #expect(
            throws: TransferFileError(
                .downloadDestination, path: file.appendingPathComponent("report.pdf").path, problem: .missingFolder)
        ) {
            try TransferFiles.replaceableFile(at: file.appendingPathComponent("report.pdf"))
        }
    }

    @Test func aFIFODestinationIsRefused() async throws {
        let folder = try ScratchFolder()
        let fifo = folder.file("pipe")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let (client, _) = client()

        let error = await #expect(throws: HTTPClientError.self) { try await client.download(.get("https://h/report"), to: fifo) }

        #expect((error?.underlyingError as? TransferFileError)?.problem == .notARegularFile(.fifo))
        #expect(error?.description.contains("is a FIFO") == true)
    }

    /// Asked of the check itself, which writes nothing: a download that got past it would
    /// replace the machine's /dev/null.
    @Test func aDeviceDestinationIsRefused() throws {
        #expect(throws: TransferFileError(.downloadDestination, path: "/dev/null", problem: .notARegularFile(.characterDevice))) {
            try TransferFiles.replaceableFile(at: URL(fileURLWithPath: "/dev/null"))
        }
    }

    @Test func aDanglingSymlinkDestinationIsRefusedNotFollowed() async throws {
        let folder = try ScratchFolder()
        let link = folder.file("link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: folder.file("nowhere").path)
        let (client, _) = client()

        let error = await #expect(throws: HTTPClientError.self) { try await client.download(.get("https://h/report"), to: link) }

        #expect((error?.underlyingError as? TransferFileError)?.problem == .notARegularFile(.danglingSymlink))
        #expect(error?.description.contains("symbolic link to nothing") == true)
        #expect(folder.names == ["link"])
    }

    @Test func aSymlinkToADirectoryIsRefused() async throws {
        let folder = try ScratchFolder()
        let directory = folder.file("dir")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        let link = folder.file("link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: directory.path)
        let (client, _) = client()

        let error = await #expect(throws: HTTPClientError.self) { try await client.download(.get("https://h/report"), to: link) }

        #expect((error?.underlyingError as? TransferFileError)?.problem == .notARegularFile(.directory))
    }

    @Test func aSymlinkToAFileHasItsTargetReplacedAndStaysALink() async throws {
        let folder = try ScratchFolder()
        let target = try folder.write("old", to: "target.txt")
        let link = folder.file("link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target.path)
        let (client, _) = client(answering: "new")

        let file = try await client.download(.get("https://h/report"), to: link)

        #expect(file.fileURL == link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
        #expect(try String(contentsOf: target, encoding: .utf8) == "new")
        #expect(folder.names == ["link", "target.txt"])
    }

    @Test func aReplacedFileKeepsItsPermissions() async throws {
        let folder = try ScratchFolder()
        let destination = try folder.write("old", to: "script.sh")
        try FileManager.default.setAttributes([.posixPermissions: 0o750], ofItemAtPath: destination.path)
        let (client, _) = client(answering: "new")

        _ = try await client.download(.get("https://h/report"), to: destination)

        let permissions = try FileManager.default.attributesOfItem(atPath: destination.path)[.posixPermissions] as? Int
        #expect(permissions == 0o750)
        #expect(try String(contentsOf: destination, encoding: .utf8) == "new")
    }

    /// The session's file is in the temporary directory; a destination on another file system
    /// (tmpfs at /dev/shm, where there is one) cannot be renamed into and is copied beside it.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/shm")))
    func aDestinationOnAnotherFileSystemIsReplacedWhole() async throws {
        let folder = URL(fileURLWithPath: "/dev/shm/transfer-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("report.csv")
        try Data("previous".utf8).write(to: destination)
        let (client, _) = client(answering: "new body")

        _ = try await client.download(.get("https://h/report"), to: destination)

        #expect(try String(contentsOf: destination, encoding: .utf8) == "new body")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["report.csv"])
    }

    @Test func aDestinationWhoseNameTakesAllOfNameMaxIsReplaced() async throws {
        let folder = try ScratchFolder()
        let name = String(repeating: "é", count: 127) + "x"  // 255 bytes of UTF-8
        let destination = try folder.write("previous", to: name)
        let (client, _) = client(answering: "new")

        _ = try await client.download(.get("https://h/report"), to: destination)

        #expect(try String(contentsOf: destination, encoding: .utf8) == "new")
        #expect(folder.names == [name])
    }

    @Test func aRejectedDownloadLeavesThePreviousFileAndNoTemporaryFile() async throws {
        let folder = try ScratchFolder()
        let destination = try folder.write("previous", to: "report.csv")
        let (client, _) = client(answering: "quota exceeded", status: 403)

        await #expect(throws: HTTPClientError.self) { try await client.download(.get("https://h/report"), to: destination) }

        #expect(try String(contentsOf: destination, encoding: .utf8) == "previous")
        #expect(folder.names == ["report.csv"])
    }

    @Test func aDownloadCutShortLeavesThePreviousFile() async throws {
        let folder = try ScratchFolder()
        let destination = try folder.write("previous", to: "report.csv")
        let stubs = StubRegistry()
        stubs.stub(.get, "https://h/report").respond(.streamed([.text("part"), .failure(URLError(.networkConnectionLost))]))

        let error = await #expect(throws: HTTPClientError.self) {
            try await HTTPClient(session: MockURLSession(stubs: stubs)).download(.get("https://h/report"), to: destination) { _ in }
        }

        #expect(error?.urlError?.code == .networkConnectionLost)
        #expect(try String(contentsOf: destination, encoding: .utf8) == "previous")
        #expect(folder.names == ["report.csv"])
    }

    @Test func theCompletionFormRefusesADirectoryToo() async throws {
        let folder = try ScratchFolder()
        let (client, _) = client()

        let result = await withCheckedContinuation { continuation in
            client.download(.get("https://h/report"), to: folder.url) { continuation.resume(returning: $0) }
        }

        #expect((result.failure?.underlyingError as? TransferFileError)?.problem == .notARegularFile(.directory))
        #expect(FileManager.default.fileExists(atPath: folder.url.path))
    }
}
