import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient

@Suite("Upload sources are regular files of a fixed length")
struct UploadSourceTests {
    private func client() -> (HTTPClient, Stub) {
        let stubs = StubRegistry()
        let stub = stubs.stub(.put, "https://h/files/1").respond(.status(201)).allowingUnused()
        return (HTTPClient(session: MockURLSession(stubs: stubs)), stub)
    }

    @Test func aDirectoryFailsAtOnceNamingItAndSendsNothing() async throws {
        let folder = try ScratchFolder()
        let (client, stub) = client()

        let error = await #expect(throws: HTTPClientError.self) {
            try await client.upload(.put("https://h/files/1"), from: .file(folder.url))
        }

        #expect(
            error?.underlyingError as? TransferFileError
                == TransferFileError(.uploadSource, path: folder.url.path, problem: .notARegularFile(.directory)))
        #expect(error?.description.contains("\(folder.url.path), is a directory: only a regular file can be uploaded") == true)
        #expect(stub.callCount == 0)
    }

    @Test func aFIFOFailsAtOnceWithoutWaitingForAWriter() async throws {
        let folder = try ScratchFolder()
        let fifo = folder.file("pipe")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let (client, stub) = client()

        let error = await #expect(throws: HTTPClientError.self) { try await client.upload(.put("https://h/files/1"), from: .file(fifo)) }

        #expect((error?.underlyingError as? TransferFileError)?.problem == .notARegularFile(.fifo))
        #expect(stub.callCount == 0)
    }

    @Test func theCompletionFormRefusesADirectoryToo() async throws {
        let folder = try ScratchFolder()
        let (client, stub) = client()

        let result = await withCheckedContinuation { continuation in
            client.upload(.put("https://h/files/1"), from: .file(folder.url)) { continuation.resume(returning: $0) }
        }

        #expect((result.failure?.underlyingError as? TransferFileError)?.problem == .notARegularFile(.directory))
        #expect(stub.callCount == 0)
    }

    @Test func anEndlessDeviceIsRefusedNotRead() {
        #expect(throws: TransferFileError(.uploadSource, path: "/dev/zero", problem: .notARegularFile(.characterDevice))) {
            try UploadSource(URL(fileURLWithPath: "/dev/zero"))
        }
    }

    @Test func aSocketIsRefused() throws {
        let folder = try ScratchFolder()
        let path = folder.file("socket").path
        // SOCK_STREAM is 1 on Linux and on Apple platforms; only the constant's type differs.
        let descriptor = socket(AF_UNIX, 1, 0)
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)

        #expect(throws: TransferFileError(.uploadSource, path: path, problem: .notARegularFile(.socket))) {
            try UploadSource(URL(fileURLWithPath: path))
        }
    }

    @Test func aDanglingSymlinkIsRefusedAsOne() throws {
        let folder = try ScratchFolder()
        let link = folder.file("link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: folder.file("nowhere").path)

        #expect(throws: TransferFileError(.uploadSource, path: link.path, problem: .notARegularFile(.danglingSymlink))) {
            try UploadSource(link)
        }
    }

    @Test func aLoopOfLinksIsUnreadableWithTheSystemsReasonNotALinkToNothing() throws {
        let folder = try ScratchFolder()
        let first = folder.file("first")
        let second = folder.file("second")
        try FileManager.default.createSymbolicLink(atPath: first.path, withDestinationPath: second.path)
        try FileManager.default.createSymbolicLink(atPath: second.path, withDestinationPath: first.path)

        let error = #expect(throws: TransferFileError.self) { try UploadSource(first) }
        guard case .unreadable(let reason)? = error?.problem else {
            Issue.record("expected an unreadable file, got \(String(describing: error))")
            return
        }
        #expect(reason == String(cString: strerror(ELOOP)))
    }

    @Test func aSourceThatIsNotAFileURLIsNotReadFromTheURLsPath() throws {
        // `path` ignores the scheme: this would have sent the file at the URL's path.
        let folder = try ScratchFolder()
        let file = try folder.write("private", to: "notes.txt")
        let url = try #require(URL(string: "https://example.com\(file.path)"))
        #expect(throws: TransferFileError(.uploadSource, path: url.absoluteString, problem: .notAFileURL)) {
            try UploadSource(url)
        }
    }

    /// Files of /proc say they hold 0 bytes and hold text: sending the declared length sent an
    /// empty body as the whole file.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status")))
    func aFileHoldingMoreThanItsSizeSaysFailsRatherThanSendingAPart() throws {
        let source = try UploadSource(URL(fileURLWithPath: "/proc/self/status"))
        #expect(source.length == 0)
        let error = #expect(throws: TransferFileError.self) { try source.readAll() }
        guard case .sizeChanged(declared: 0, let found)? = error?.problem else {
            Issue.record("expected a size change, got \(String(describing: error))")
            return
        }
        #expect(found >= 1)
    }

    @Test func aSymlinkToAFileSendsTheFile() async throws {
        let folder = try ScratchFolder()
        let target = try folder.write("the contents", to: "target.txt")
        let link = folder.file("link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target.path)
        let stubs = StubRegistry()
        let upload = stubs.stub(.put, "https://h/files/1").matching(.body("the contents")).respond(.status(201))

        let response = try await HTTPClient(session: MockURLSession(stubs: stubs)).upload(.put("https://h/files/1"), from: .file(link))

        #expect(response.statusCode == 201)
        #expect(upload.callCount == 1)
    }

    @Test func aFileThatGrowsAfterItsLengthWasTakenFailsAndIsNotReadPastIt() throws {
        let folder = try ScratchFolder()
        let file = try folder.write("12345", to: "growing.log")
        let source = try UploadSource(file)
        let handle = try FileHandle(forWritingTo: file)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("678".utf8))
        try handle.close()
        var read = Data()

        #expect(throws: TransferFileError(.uploadSource, path: file.path, problem: .sizeChanged(declared: 5, found: 8))) {
            try source.read(pieceSize: 2) { read.append($0) }
        }
        #expect(read == Data("12345".utf8))
    }

    @Test func aFileThatShrinksFailsInsteadOfWaitingForTheRest() throws {
        let folder = try ScratchFolder()
        let file = try folder.write("12345", to: "shrinking.log")
        let source = try UploadSource(file)
        #expect(truncate(file.path, 2) == 0)

        #expect(throws: TransferFileError(.uploadSource, path: file.path, problem: .sizeChanged(declared: 5, found: 2))) {
            try source.readAll()
        }
    }

    /// Reads `stream` to its end or its error: the bytes, and whether it failed.
    private func drain(_ stream: InputStream) -> (Data, failed: Bool) {
        stream.open()
        defer { stream.close() }
        var body = Data()
        var buffer = [UInt8](repeating: 0, count: 3)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count < 0 { return (body, true) }
            if count == 0 { return (body, false) }
            body.append(contentsOf: buffer[0..<count])
        }
    }

    @Test func theBodyStreamGivenToASessionEndsAtTheLengthTakenAndTheGrowthIsCaught() throws {
        let folder = try ScratchFolder()
        let file = try folder.write("12345", to: "data.bin")
        let source = try UploadSource(file)
        try Data("1234567".utf8).write(to: file)

        let (body, failed) = drain(source.bodyStream())

        #expect(body == Data("12345".utf8))
        #expect(!failed)
        #expect(throws: TransferFileError(.uploadSource, path: file.path, problem: .sizeChanged(declared: 5, found: 7))) {
            try source.checkUnchanged()
        }
    }

    @Test func theBodyStreamOfAFileThatShrankFailsRatherThanEndingShort() throws {
        let folder = try ScratchFolder()
        let file = try folder.write("123456789", to: "data.bin")
        let source = try UploadSource(file)
        #expect(truncate(file.path, 4) == 0)

        let (body, failed) = drain(source.bodyStream())

        #expect(body == Data("1234".utf8))
        #expect(failed)
    }

    @Test func eachBodyStreamStartsAtTheBeginning() throws {
        let folder = try ScratchFolder()
        let source = try UploadSource(try folder.write("abcdef", to: "data.bin"))
        #expect(drain(source.bodyStream()).0 == Data("abcdef".utf8))
        #expect(drain(source.bodyStream()).0 == Data("abcdef".utf8))
    }

    @Test func theMockSessionsUploadOfADirectoryIsAURLErrorOverTheTypedError() async throws {
        let folder = try ScratchFolder()
        let session = MockURLSession(stubs: StubRegistry())

        let error = await #expect(throws: URLError.self) {
            try await session.upload(for: URLRequest(url: url("https://h/files/1")), fromFile: folder.url)
        }

        #expect(error?.code == .fileIsDirectory)
        #expect((error?.userInfo[NSUnderlyingErrorKey] as? TransferFileError)?.problem == .notARegularFile(.directory))
        #expect(session.requests.isEmpty)
    }

    @Test func aURLSessionsCheckedUploadOfADirectoryFailsBeforeAnythingIsSent() async throws {
        let folder = try ScratchFolder()
        let stubs = StubRegistry()
        let session: any URLSessionProtocol = stubs.makeURLSession()

        let error = await #expect(throws: URLError.self) {
            try await session.upload(for: URLRequest(url: url("https://h/files/1")), fromFile: folder.url) { _ in }
        }

        #expect(error?.code == .fileIsDirectory)
        #expect(stubs.requests.isEmpty)
    }
}
