import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient

@Suite("A cancelled or short transfer is never a success")
struct TransferCancellationTests {
    /// 100 bytes, a long pause, 100 more: a download that is cancelled in the pause.
    private func halfwayStubs() -> StubRegistry {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://h/export").respond(
            .streamed(
                headers: ["Content-Length": "200"],
                [.data(Data(repeating: 1, count: 100)), .pause(5), .data(Data(repeating: 2, count: 100))]))
        return stubs
    }

    @Test func cancellingADownloadHalfwayThrowsCancelledAndKeepsThePreviousFile() async throws {
        let folder = try ScratchFolder()
        let destination = try folder.write("previous", to: "export.bin")
        let client = HTTPClient(session: MockURLSession(stubs: halfwayStubs(), simulatesLatency: true))
        let (halfway, reached) = AsyncStream.makeStream(of: Void.self)

        let download = Task {
            try await client.download(.get("https://h/export"), to: destination) { progress in
                if progress.bytes >= 100 { reached.yield() }
            }
        }
        for await _ in halfway { break }
        download.cancel()
        let result = await download.result

        #expect((result.failure as? HTTPClientError)?.isCancelled == true)
        #expect(try String(contentsOf: destination, encoding: .utf8) == "previous")
        #expect(folder.names == ["export.bin"])
    }

    @Test func cancellingTheCompletionFormsDownloadReportsCancelled() async throws {
        let folder = try ScratchFolder()
        let destination = try folder.write("previous", to: "export.bin")
        let client = HTTPClient(session: MockURLSession(stubs: halfwayStubs(), simulatesLatency: true))
        let (halfway, reached) = AsyncStream.makeStream(of: Void.self)
        let (results, finished) = AsyncStream.makeStream(of: Result<DownloadedFile, HTTPClientError>.self)

        let task = client.download(
            .get("https://h/export"), to: destination, progress: { if $0.bytes >= 100 { reached.yield() } },
            completion: { finished.yield($0) })
        for await _ in halfway { break }
        task.cancel()
        var result: Result<DownloadedFile, HTTPClientError>?
        for await value in results {
            result = value
            break
        }

        #expect(result?.failure?.isCancelled == true)
        #expect(try String(contentsOf: destination, encoding: .utf8) == "previous")
        #expect(folder.names == ["export.bin"])
    }

    @Test func theDefaultDownloadThrowsWhenItsTaskIsCancelledMidBody() async throws {
        let session = MockURLSession(stubs: halfwayStubs(), simulatesLatency: true)
        let (halfway, reached) = AsyncStream.makeStream(of: Void.self)

        let download = Task {
            try await session.download(for: URLRequest(url: url("https://h/export"))) { progress in
                if progress.bytes >= 100 { reached.yield() }
            }
        }
        for await _ in halfway { break }
        download.cancel()

        await #expect(throws: CancellationError.self) { try await download.value }
    }

    /// A session that hands over a file shorter than its `Content-Length` as if it were whole.
    private struct ShortSession: URLSessionProtocol {
        func makeDataTask(
            with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
        ) -> any URLSessionDataTaskProtocol {
            preconditionFailure("only downloads are asked of this session")
        }

        func download(for request: URLRequest, delegate: (any URLSessionTaskDelegate)?) async throws -> (URL, URLResponse) {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("short-\(UUID().uuidString)")
            try Data(repeating: 0, count: 10).write(to: file)
            guard
                let response = HTTPURLResponse(
                    url: url("https://h/export"), statusCode: 200, httpVersion: nil, headerFields: ["Content-Length": "20"])
            else { throw URLError(.badServerResponse) }
            return (file, response)
        }
    }

    @Test func aFileShorterThanItsContentLengthIsAnErrorAndKeepsThePreviousFile() async throws {
        let folder = try ScratchFolder()
        let destination = try folder.write("previous", to: "export.bin")

        let error = await #expect(throws: HTTPClientError.self) {
            try await HTTPClient(session: ShortSession()).download(.get("https://h/export"), to: destination)
        }

        #expect(error?.urlError?.code == .networkConnectionLost)
        #expect(error?.description.contains("10 of the 20 bytes") == true)
        #expect(try String(contentsOf: destination, encoding: .utf8) == "previous")
        #expect(folder.names == ["export.bin"])
    }

    @Test func cancellingAnUploadThrowsCancelled() async throws {
        let folder = try ScratchFolder()
        let source = try folder.write("contents", to: "upload.txt")
        let session = PendingSession()
        let client = HTTPClient(session: session)

        let upload = Task { try await client.upload(.put("https://h/files/1"), from: .file(source)) }
        for await _ in session.tasks { break }
        upload.cancel()

        #expect((await upload.result.failure as? HTTPClientError)?.isCancelled == true)
    }

    @Test func cancellingTheCompletionFormsUploadReportsCancelled() async throws {
        let folder = try ScratchFolder()
        let source = try folder.write("contents", to: "upload.txt")
        let session = PendingSession()
        let (results, finished) = AsyncStream.makeStream(of: Result<HTTPClient.Response<Data>, HTTPClientError>.self)

        let task = HTTPClient(session: session).upload(.put("https://h/files/1"), from: .file(source)) { finished.yield($0) }
        for await _ in session.tasks { break }
        task.cancel()
        var result: Result<HTTPClient.Response<Data>, HTTPClientError>?
        for await value in results {
            result = value
            break
        }

        #expect(result?.failure?.isCancelled == true)
    }
}
