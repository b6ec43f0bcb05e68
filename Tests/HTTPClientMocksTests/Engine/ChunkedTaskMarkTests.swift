import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// `URLSessionTask.readsBodyInChunks`: the public mark by which a `URLProtocol` (the stubs' one
/// here) tells a task of `chunks(for:)` from a completion-handler task.
@Suite("The chunked-task mark")
struct ChunkedTaskMarkTests {
    @Test func aTaskOfChunksForIsServedPieceByPieceThroughTheURLProtocol() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/feed").respond(.streamed([.text("one "), .pause(0.005), .text("two "), .pause(0.005), .text("three")]))
        let (chunks, _) = try await stubs.makeURLSession().chunks(for: URLRequest(url: testURL("https://h/feed")))
        var received: [String] = []
        for try await chunk in chunks { received.append(String(decoding: chunk, as: UTF8.self)) }
        #expect(received == ["one ", "two ", "three"])
    }

    @Test func aPlainDataTaskDoesNotReadItsBodyInChunks() {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: testURL("https://h/feed"))
        #expect(!task.readsBodyInChunks)
    }

    @Test func aTaskWhoseDescriptionWasReplacedIsNoLongerMarked() {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: testURL("https://h/feed"))
        task.taskDescription = "mine"
        #expect(!task.readsBodyInChunks)
    }
}
