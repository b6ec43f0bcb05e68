import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient

@Suite("Streamed stub bodies, chunk by chunk")
struct StreamedResponseTests {
    private let feed = URLRequest(url: testURL("https://h/feed"))

    private func collect(_ chunks: ChunkStream) async throws -> [Data] {
        var received: [Data] = []
        for try await chunk in chunks { received.append(chunk) }
        return received
    }

    /// `parts` as they arrive where a chunk is a part; where a chunk is what one read of a socket
    /// returns (documented), `received` joined is `parts` joined, in no more chunks than parts.
    private func expect(
        _ received: [Data], toBe parts: [String], on transport: Transport, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let expected = parts.map { Data($0.utf8) }
        if transport.differs(in: .chunkBoundaries) {
            #expect(received.reduce(Data(), +) == expected.reduce(Data(), +), sourceLocation: sourceLocation)
            #expect((1...expected.count).contains(received.count), sourceLocation: sourceLocation)
        } else {
            #expect(received == expected, sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: Transport.allCases)
    func eachDataPartIsOneChunkAfterTheResponse(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/feed")
            .respond(.streamed(headers: ["Content-Type": "text/plain"], [.text("one "), .text("two "), .pause(0.01), .text("three")]))
        let (chunks, response) = try await transport.session(stubs).chunks(for: feed)
        #expect(response.status == 200)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "text/plain")
        expect(try await collect(chunks), toBe: ["one ", "two ", "three"], on: transport)
    }

    @Test(arguments: Transport.allCases)
    func aCallerOfTheWholeBodyGetsEveryPieceJoined(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/feed").respond(.streamed([.text("one "), .pause(0.01), .text("two")]))
        let (data, _) = try await transport.session(stubs).data(for: feed)
        #expect(data == Data("one two".utf8))
    }

    @Test(arguments: Transport.allCases)
    func aTransferCutShortDeliversTheChunksBeforeThenTheError(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/feed").respond(.streamed([.text("one"), .failure(URLError(.networkConnectionLost)), .text("never")]))
        let session = try transport.session(stubs)
        let (chunks, _) = try await session.chunks(for: feed)
        var received: [Data] = []
        let error = await #expect(throws: URLError.self) {
            for try await chunk in chunks { received.append(chunk) }
        }
        #expect(received == [Data("one".utf8)])

        let wholeBodyError = await #expect(throws: URLError.self) { try await session.data(for: feed) }
        // Where the error's code cannot reach the client (documented), the failure still does.
        if !transport.differs(in: .stubbedErrors) {
            #expect(error?.code == .networkConnectionLost)
            #expect(wholeBodyError?.code == .networkConnectionLost)
        }
    }

    /// A failure before any part still comes after the head: the answer began, then broke.
    @Test(arguments: Transport.allCases)
    func aFailureBeforeAnyPartComesAfterTheHead(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/feed").respond(.streamed(headers: ["X-Feed": "1"], [.failure(URLError(.networkConnectionLost))]))
        let (chunks, response) = try await transport.session(stubs).chunks(for: feed)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Feed") == "1")
        var received: [Data] = []
        let error = await #expect(throws: URLError.self) {
            for try await chunk in chunks { received.append(chunk) }
        }
        #expect(received.isEmpty)
        if !transport.differs(in: .stubbedErrors) { #expect(error?.code == .networkConnectionLost) }
    }

    /// The head does not wait for a pause that opens the body: the reader has the response while
    /// the first part is still to come (an hour later; the test never waits for it).
    @Test(.timeLimit(.minutes(10)), arguments: Transport.allCases)
    func aPauseBeforeTheFirstPartComesAfterTheHead(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/feed").respond(.streamed(headers: ["X-Feed": "1"], [.pause(3600), .text("an hour later")]))
        let (_, response) = try await transport.session(stubs, simulatesLatency: true).chunks(for: feed)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Feed") == "1")
    }

    @Test(arguments: Transport.allCases)
    func serverSentEventsStubbedAreTheEventsParsed(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let sent = [
            ServerSentEvent(type: "token", data: "Hel", lastEventID: "1"),
            ServerSentEvent(type: "token", data: "lo\nworld", lastEventID: "2", retry: 1500),
            ServerSentEvent(data: "[DONE]", lastEventID: "2", retry: 1500),
        ]
        stubs.stub(.get, "/feed").respond(.serverSentEvents(sent, pause: 0.01))
        let (chunks, response) = try await transport.session(stubs).chunks(for: feed)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "text/event-stream")
        var received: [ServerSentEvent] = []
        for try await event in chunks.serverSentEvents() { received.append(event) }
        #expect(received == sent)
    }

    @Test(arguments: Transport.allCases)
    func anUnstreamedAnswerIsOneChunk(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/feed").respond(.text("whole"))
        let (chunks, _) = try await transport.session(stubs).chunks(for: feed)
        expect(try await collect(chunks), toBe: ["whole"], on: transport)
    }

    @Test(arguments: Transport.allCases)
    func anErrorBeforeTheResponseIsThrownByChunksItself(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/feed").respond(.error(URLError(.notConnectedToInternet)))
        let session = try transport.session(stubs)
        let error = await #expect(throws: URLError.self) { try await session.chunks(for: feed) }
        if !transport.differs(in: .stubbedErrors) { #expect(error?.code == .notConnectedToInternet) }
    }

    @Test func droppingTheStreamCancelsTheTask() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/feed").respond(.streamed([.text("first"), .pause(3600), .text("an hour later")]))
        let session = MockURLSession(stubs: stubs, simulatesLatency: true)
        let task = MockURLSessionDataTask()
        session.nextDataTask = task
        /// Reads one chunk and lets the stream go, as a caller returning from a loop does.
        func firstChunk() async throws -> Data? {
            let (chunks, _) = try await session.chunks(for: feed)
            for try await chunk in chunks { return chunk }
            return nil
        }
        #expect(try await firstChunk() == Data("first".utf8))
        #expect(task.cancelWasCalled)
        #expect(task.resumeWasCalled)
        #expect(session.lastURL == feed.url)
    }

    @Test func cancellingTheReadingTaskCancelsTheTask() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/feed").respond(.streamed([.text("first"), .pause(3600), .text("an hour later")]))
        let session = MockURLSession(stubs: stubs, simulatesLatency: true)
        let task = MockURLSessionDataTask()
        session.nextDataTask = task
        let (reader, _) = try await Self.readerCancelledAfterTheFirstChunk(of: session, feed)
        _ = await reader.result
        #expect(task.cancelWasCalled)
    }

    @Test(arguments: Transport.allCases)
    func aReaderCancelledHalfwayGetsCancellationErrorNotTheEnd(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/feed").respond(.streamed([.text("first"), .pause(3600), .text("an hour later")]))
        let session = try transport.session(stubs, simulatesLatency: true)
        let (reader, received) = try await Self.readerCancelledAfterTheFirstChunk(of: session, feed)
        await #expect(throws: CancellationError.self) { try await reader.value }
        #expect(received.current == [Data("first".utf8)])
    }

    @Test(arguments: Transport.allCases)
    func aReaderCancelledWithChunksWaitingGetsCancellationError(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/feed").respond(.streamed([.text("one"), .text("two"), .text("three")]))
        let (chunks, _) = try await transport.session(stubs).chunks(for: feed)
        let reader = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            for try await _ in chunks {}
        }
        await #expect(throws: CancellationError.self) { try await reader.value }
    }

    /// Where a reader cannot hold the sender back (documented), the whole body still arrives.
    @Test(arguments: Transport.allCases)
    func aSlowReaderOfALargeStreamedStubHoldsAtMostAWindow(_ transport: Transport) async throws {
        let part = Data(repeating: 7, count: 256 << 10)
        let stubs = StubRegistry()
        stubs.stub(.get, "/feed").respond(.streamed(Array(repeating: .data(part), count: 64)))
        let (chunks, _) = try await transport.session(stubs).chunks(for: feed)
        let bounded = !transport.differs(in: .readerHoldsTheSenderBack)
        #expect(!bounded || chunks.bufferedByteCount <= ChunkStream.defaultWindow)
        var iterator = chunks.makeAsyncIterator()
        var total = 0
        while let chunk = try await iterator.next() {
            total += chunk.count
            #expect(!bounded || chunks.bufferedByteCount <= ChunkStream.defaultWindow)
        }
        #expect(total == 64 * part.count)
    }

    /// Starts a task that reads `request` from `session` and is cancelled once the first chunk
    /// has arrived; returns it and the chunks it received.
    private static func readerCancelledAfterTheFirstChunk(
        of session: any URLSessionProtocol, _ request: URLRequest
    ) async throws -> (Task<Void, any Error>, Locked<[Data]>) {
        let received = Locked<[Data]>([])
        let (gotChunk, signal) = AsyncStream<Void>.makeStream()
        let reader = Task {
            let (chunks, _) = try await session.chunks(for: request)
            for try await chunk in chunks {
                received.withLock { $0.append(chunk) }
                signal.yield()
            }
        }
        var signals = gotChunk.makeAsyncIterator()
        _ = await signals.next()
        reader.cancel()
        return (reader, received)
    }
}
