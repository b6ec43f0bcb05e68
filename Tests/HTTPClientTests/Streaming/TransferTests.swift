import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient

@Suite("Downloads to files and uploads from files")
struct TransferTests {
    private func temporaryFile(_ name: String = UUID().uuidString) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("transfer-tests-\(name)")
    }

    @Test func aDownloadGoesToATemporaryFileWithProgressPerChunk() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://h/export.csv")
            .respond(.streamed(headers: ["Content-Length": "9"], [.text("a,b\n"), .text("1,2\n"), .text("\n")]))
        let reports = Locked<[TransferProgress]>([])
        let client = HTTPClient(session: MockURLSession(stubs: stubs))

        let file = try await client.download(.get("https://h/export.csv")) { progress in reports.withLock { $0.append(progress) } }
        defer { try? FileManager.default.removeItem(at: file.fileURL) }

        #expect(try Data(contentsOf: file.fileURL) == Data("a,b\n1,2\n\n".utf8))
        #expect(file.head.statusCode == 200)
        #expect(reports.current.map(\.bytes) == [4, 8, 9])
        #expect(reports.current.last?.fractionCompleted == 1)
    }

    @Test func aDownloadReplacesTheFileAtItsDestination() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://h/report").respond(.text("new"))
        let destination = temporaryFile()
        try Data("old contents".utf8).write(to: destination)
        defer { try? FileManager.default.removeItem(at: destination) }

        let file = try await HTTPClient(session: MockURLSession(stubs: stubs)).download(.get("https://h/report"), to: destination)

        #expect(file.fileURL == destination)
        #expect(try String(contentsOf: destination, encoding: .utf8) == "new")
    }

    @Test func aRejectedDownloadThrowsWithItsBodyAndWritesNothing() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://h/report").respond(.text("quota exceeded", status: 403))
        let destination = temporaryFile()

        let error = await #expect(throws: HTTPClientError.self) {
            try await HTTPClient(session: MockURLSession(stubs: stubs)).download(.get("https://h/report"), to: destination)
        }

        #expect(error?.response?.statusCode == 403)
        #expect(error?.response?.text == "quota exceeded")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test func aDownloadCutShortLeavesNoFileAndSaysWhy() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://h/big").respond(.streamed([.text("part"), .failure(URLError(.networkConnectionLost))]))
        let destination = temporaryFile()

        let error = await #expect(throws: HTTPClientError.self) {
            try await HTTPClient(session: MockURLSession(stubs: stubs)).download(.get("https://h/big"), to: destination)
        }

        #expect(error?.urlError?.code == .networkConnectionLost)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test func aFailedDownloadIsRetriedLikeAnyRequest() async throws {
        let stubs = StubRegistry()
        let report = stubs.stub(.get, "https://h/report").respond(.status(503), .text("done"))
        let client = HTTPClient(session: MockURLSession(stubs: stubs), retryPolicy: RetryPolicy(jitter: 0), scheduler: ImmediateScheduler())

        let file = try await client.download(.get("https://h/report"))
        defer { try? FileManager.default.removeItem(at: file.fileURL) }

        #expect(report.callCount == 2)
        #expect(try Data(contentsOf: file.fileURL) == Data("done".utf8))
    }

    @Test func anUploadSendsTheFileAndReportsItSent() async throws {
        let body = Data((0..<10_000).map { UInt8($0 % 251) })
        let source = temporaryFile()
        try body.write(to: source)
        defer { try? FileManager.default.removeItem(at: source) }
        let stubs = StubRegistry()
        let upload = stubs.stub(.put, "https://h/files/1").matching(.body(body)).respond(.status(201))
        let reports = Locked<[TransferProgress]>([])

        let response = try await HTTPClient(session: MockURLSession(stubs: stubs))
            .upload(.put("https://h/files/1", body: .text("not sent")), from: .file(source)) { progress in
                reports.withLock { $0.append(progress) }
            }

        #expect(response.statusCode == 201)
        #expect(upload.callCount == 1)
        #expect(reports.current == [TransferProgress(bytes: 10_000, expectedBytes: 10_000)])
    }

    @Test func anUploadOfAMissingFileIsATypedErrorNamingIt() async throws {
        let stubs = StubRegistry()
        let upload = stubs.stub(.put, "https://h/files/1").respond(.status(201)).allowingUnused()
        let missing = temporaryFile("missing")

        let error = await #expect(throws: HTTPClientError.self) {
            try await HTTPClient(session: MockURLSession(stubs: stubs)).upload(.put("https://h/files/1"), from: .file(missing))
        }

        #expect(error?.underlyingError as? TransferFileError == TransferFileError(.uploadSource, path: missing.path, problem: .missing))
        #expect(error?.description.contains(missing.path) == true)
        #expect(upload.callCount == 0)
    }

    @Test func progressWithoutAKnownSizeHasNoFraction() {
        let unknown = TransferProgress(bytes: 10, expectedBytes: -1)
        #expect(unknown.expectedBytes == nil)
        #expect(unknown.fractionCompleted == nil)
        #expect(unknown.description == "10 bytes")
        #expect(TransferProgress(bytes: 5, expectedBytes: 10).fractionCompleted == 0.5)
        #expect(TransferProgress(bytes: 50, expectedBytes: 10).fractionCompleted == 1)
    }

    @Test func aSummaryShowsSizeShareAndRate() {
        #expect(
            TransferProgress(bytes: 13_107_200, expectedBytes: 104_857_600).summary(after: 2) == "12.5 MiB of 100.0 MiB (12%) at 6.2 MiB/s")
        #expect(TransferProgress(bytes: 512, expectedBytes: nil).summary(after: 1) == "512 B at 512 B/s")
        #expect(TransferProgress(bytes: 3 << 30, expectedBytes: nil).summary(after: 0) == "3.0 GiB")
    }

    @Test func theCompletionFormsDownloadAndUploadToo() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://h/report").respond(.text("report"))
        stubs.stub(.put, "https://h/files/2").matching(.body("uploaded")).respond(.status(204))
        let source = temporaryFile()
        try Data("uploaded".utf8).write(to: source)
        defer { try? FileManager.default.removeItem(at: source) }
        let client = HTTPClient(session: MockURLSession(stubs: stubs))

        let downloaded = await withCheckedContinuation { continuation in
            client.download(.get("https://h/report")) { continuation.resume(returning: $0) }
        }
        let uploaded = await withCheckedContinuation { continuation in
            client.upload(.put("https://h/files/2"), from: .file(source)) { continuation.resume(returning: $0) }
        }

        let file = try downloaded.get().fileURL
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try Data(contentsOf: file) == Data("report".utf8))
        #expect(try uploaded.get().statusCode == 204)
    }

    @Test func aDataUploadReportsItsProgress() async throws {
        let body = Data(repeating: 7, count: 4096)
        let stubs = StubRegistry()
        let upload = stubs.stub(.post, "https://h/blobs").matching(.body(body)).respond(.status(201))
        let reports = Locked<[TransferProgress]>([])

        let response = try await HTTPClient(session: MockURLSession(stubs: stubs))
            .upload(.post("https://h/blobs"), from: .data(body)) { progress in reports.withLock { $0.append(progress) } }

        #expect(response.statusCode == 201)
        #expect(upload.callCount == 1)
        #expect(reports.current == [TransferProgress(bytes: 4096, expectedBytes: 4096)])
    }

    @Test func inAsyncCodeATrailingClosureIsTheProgressHandler() async throws {
        let stubs = StubRegistry()
        stubs.stub(.post, "https://h/blobs").respond(.status(201))
        let source = temporaryFile()
        try Data("x".utf8).write(to: source)
        defer { try? FileManager.default.removeItem(at: source) }
        let client = HTTPClient(session: MockURLSession(stubs: stubs))

        // Were the completion form chosen, these would not be responses and would not compile.
        let fromFile: HTTPClient.Response<Data> = try await client.upload(.post("https://h/blobs"), from: .file(source)) { _ in }
        let fromData: HTTPClient.Response<Data> = try await client.upload(.post("https://h/blobs"), from: .data(Data("x".utf8))) { _ in }

        #expect(fromFile.statusCode == 201)
        #expect(fromData.statusCode == 201)
    }
}
