import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient

/// A file upload through a real `URLSession` sends the file as it is on disk, read as it goes:
/// the length taken when it was opened, no copy, and a typed error when it changes meanwhile.
@Suite("File uploads through a real session")
struct FileUploadTests {
    let stubs = StubRegistry()
    let server: StubServer
    let folder: ScratchFolder

    init() throws {
        stubs.stub(.put, "/files").respond(.status(201)).allowingUnused()
        server = try StubServer(stubs)
        folder = try ScratchFolder()
    }

    private var request: URLRequest {
        var request = URLRequest(url: server.baseURL.appendingPathComponent("files"))
        request.httpMethod = "PUT"
        return request
    }

    private func file(bytes: Int) throws -> URL {
        let url = folder.file("upload.bin")
        try Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: url)
        return url
    }

    private func sizeChange(in error: (any Error)?) -> TransferFileError.Problem? {
        ((error as? URLError)?.userInfo[NSUnderlyingErrorKey] as? TransferFileError)?.problem
    }

    @Test func theServerGetsTheFileAsItIsOnDisk() async throws {
        let source = try file(bytes: 300_000)
        let session = URLSession(configuration: .ephemeral)
        let sent = Locked<[TransferProgress]>([])

        let (_, response) = try await session.upload(for: request, fromFile: source) { progress in sent.withLock { $0.append(progress) } }

        #expect((response as? HTTPURLResponse)?.statusCode == 201)
        let received = try #require(stubs.requests.last)
        #expect(received.body == (try Data(contentsOf: source)))
        if bodyStreamsCanDeclareTheirLength {
            #expect(received.headers["Content-Length"] == "300000")
        } else {
            #expect(received.headers["Transfer-Encoding"] == "chunked")
        }
        #expect(sent.current.last == TransferProgress(bytes: 300_000, expectedBytes: 300_000))
    }

    @Test func aFileThatGrowsWhileItIsSentIsSentToTheLengthTakenAndFails() async throws {
        let source = try file(bytes: 2_000_000)
        let original = try Data(contentsOf: source)
        let grown = FirstCall()

        let error = await #expect(throws: URLError.self) {
            try await URLSession(configuration: .ephemeral).upload(for: request, fromFile: source) { _ in
                guard grown.claim() else { return }
                let handle = try? FileHandle(forWritingTo: source)
                _ = try? handle?.seekToEnd()
                try? handle?.write(contentsOf: Data(repeating: 7, count: 100_000))
                try? handle?.close()
            }
        }

        #expect(sizeChange(in: error) == .sizeChanged(declared: 2_000_000, found: 2_100_000))
        #expect(stubs.requests.last?.body == original)
    }

    @Test func aFileThatShrinksWhileItIsSentFailsRatherThanSendingAShortBody() async throws {
        let source = try file(bytes: 2_000_000)
        let shrunk = FirstCall()

        let error = await #expect(throws: URLError.self) {
            try await URLSession(configuration: .ephemeral).upload(for: request, fromFile: source) { _ in
                guard shrunk.claim() else { return }
                _ = truncate(source.path, 1_000)
            }
        }

        #expect(sizeChange(in: error) == .sizeChanged(declared: 2_000_000, found: 1_000))
        #expect(stubs.requests.allSatisfy { $0.body.count != 1_000 })
    }

    @Test func noCopyOfTheFileIsWrittenWhileItIsSent() async throws {
        // A size no other file in the temporary folder has: a copy would show it.
        let size = 1_234_567
        let source = try file(bytes: size)
        let gate = HeldResponse()
        stubs.stub(.put, "/held").respond(.status(201).held(by: gate))
        var held = request
        held.url = server.baseURL.appendingPathComponent("held")
        let before = Self.temporaryFiles(ofSize: size)

        let upload = Task { try await URLSession(configuration: .ephemeral).upload(for: held, fromFile: source) { _ in } }
        defer { gate.release() }
        try await gate.waitUntilHolding(1, timeout: .seconds(600))
        let during = Self.temporaryFiles(ofSize: size)
        gate.release()
        _ = try await upload.value

        #expect(during == before)
    }

    private static func temporaryFiles(ofSize size: Int) -> Set<String> {
        let folder = FileManager.default.temporaryDirectory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return Set(
            names.filter { name in
                (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[.size] as? Int) == size
            })
    }
}

/// True the first time it is asked, false after.
final class FirstCall: Sendable {
    private let called = Locked(false)

    func claim() -> Bool {
        called.withLock { called in
            defer { called = true }
            return !called
        }
    }
}

/// Importing the package adds no method that a call of `URLSession`'s own would reach instead.
@Suite("URLSession's own methods stay its own")
struct URLSessionOwnMethodsTests {
    let stubs = StubRegistry()
    let server: StubServer

    init() throws {
        stubs.stub(where: .any).respond(.text("ok")).allowingUnused()
        server = try StubServer(stubs)
    }

    /// A file that is not there: `URLSession`'s own upload fails with its own error, which the
    /// package's checked upload would wrap around a `TransferFileError`.
    @Test func uploadFromAFileIsURLSessionsOwnWithOrWithoutTheProtocol() async throws {
        let session = URLSession(configuration: .ephemeral)
        var request = URLRequest(url: server.baseURL.appendingPathComponent("upload"))
        request.httpMethod = "POST"
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)")
        let asProtocol: any URLSessionProtocol = session

        let direct = await #expect(throws: URLError.self) { try await session.upload(for: request, fromFile: missing) }
        let explicit = await #expect(throws: URLError.self) { try await session.upload(for: request, fromFile: missing, delegate: nil) }
        let throughTheProtocol = await #expect(throws: URLError.self) { try await asProtocol.upload(for: request, fromFile: missing) }

        for error in [direct, explicit, throughTheProtocol] {
            #expect(error?.code == explicit?.code)
            #expect(!(error?.userInfo[NSUnderlyingErrorKey] is TransferFileError))
        }
    }

    @Test func theOtherBuiltInCallsCompileAndAnswerAsTheirDelegateForms() async throws {
        let session = URLSession(configuration: .ephemeral)
        let request = URLRequest(url: server.baseURL.appendingPathComponent("echo"))
        var post = request
        post.httpMethod = "POST"

        let (data, _) = try await session.data(for: request)
        let (uploaded, _) = try await session.upload(for: post, from: Data("x".utf8))
        let (file, _) = try await session.download(for: request)
        defer { unlink(file.path) }

        #expect(String(decoding: data, as: UTF8.self) == "ok")
        #expect(String(decoding: uploaded, as: UTF8.self) == "ok")
        #expect(try String(contentsOf: file, encoding: .utf8) == "ok")
    }
}
