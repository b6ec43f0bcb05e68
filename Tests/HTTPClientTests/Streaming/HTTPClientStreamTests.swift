import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient

@Suite("Streaming responses through HTTPClient")
struct HTTPClientStreamTests {
    @Test func theHeadArrivesFirstThenTheChunks() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://api.example.com/feed")
            .respond(.streamed(headers: ["X-Feed": "live"], [.text("a"), .text("b"), .text("c")]))
        let client = HTTPClient(session: MockURLSession(stubs: stubs))

        let feed = try await client.stream(.get("https://api.example.com/feed"))

        #expect(feed.head.statusCode == 200)
        #expect(feed.head.headers["X-Feed"] == "live")
        #expect(feed.head.url?.absoluteString == "https://api.example.com/feed")
        var chunks: [String] = []
        for try await chunk in feed.chunks { chunks.append(String(decoding: chunk, as: UTF8.self)) }
        #expect(chunks == ["a", "b", "c"])
    }

    @Test func serverSentEventsComeParsed() async throws {
        let stubs = StubRegistry()
        let tokens = ["Hel", "lo", "!"].enumerated().map { ServerSentEvent(type: "token", data: $1, lastEventID: "\($0)") }
        stubs.stub(.get, "https://api.example.com/chat").respond(.serverSentEvents(tokens))
        let client = HTTPClient(session: MockURLSession(stubs: stubs))

        var text = ""
        for try await event in try await client.stream(.get("https://api.example.com/chat")).chunks.serverSentEvents() {
            text += event.data
        }

        #expect(text == "Hello!")
    }

    @Test func aRejectedStatusThrowsWithTheBodyBeforeAnyStreamIsHandedOut() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://api.example.com/feed").respond(.streamed(status: 429, [.text("slow "), .text("down")]))
        let client = HTTPClient(session: MockURLSession(stubs: stubs))

        let error = await #expect(throws: HTTPClientError.self) { try await client.stream(.get("https://api.example.com/feed")) }

        #expect(error?.response?.statusCode == 429)
        #expect(error?.response?.text == "slow down")
    }

    @Test func aRejectedHeadIsRetriedButNothingAfterTheStreamStarts() async throws {
        let stubs = StubRegistry()
        let feed = stubs.stub(.get, "https://api.example.com/feed")
            .respond(.status(503), .streamed([.text("one"), .failure(URLError(.networkConnectionLost))]), .text("never"))
            .allowingUnused()
        let client = HTTPClient(
            session: MockURLSession(stubs: stubs), retryPolicy: RetryPolicy(jitter: 0), scheduler: ImmediateScheduler())

        let stream = try await client.stream(.get("https://api.example.com/feed"))
        var received: [Data] = []
        let error = await #expect(throws: HTTPClientError.self) {
            for try await chunk in stream.chunks { received.append(chunk) }
        }

        #expect(feed.callCount == 2)
        #expect(received == [Data("one".utf8)])
        #expect(error?.urlError?.code == .networkConnectionLost)
    }

    @Test func interceptorsAdaptTheStreamedRequestAndEventsReportIt() async throws {
        let stubs = StubRegistry()
        let feed = stubs.stub(.get, "https://api.example.com/feed").matching(.header("Authorization", "Bearer t0ken"))
            .respond(.streamed([.text("ok")]))
        let events = Locked<[HTTPClientEvent]>([])
        let client = HTTPClient(
            session: MockURLSession(stubs: stubs), interceptors: [BearerTokenInterceptor(token: "t0ken", refresh: { "t0ken" })],
            onEvent: { event in events.withLock { $0.append(event) } })

        _ = try await client.stream(.get("https://api.example.com/feed"))

        #expect(feed.callCount == 1)
        #expect(events.current.map(\.statusCode) == [200])
        #expect(events.current.first?.description.contains("t0ken") == false)
    }

    @Test func aTransportErrorBeforeTheHeadIsTyped() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://api.example.com/feed").respond(.error(URLError(.cannotConnectToHost)))
        let client = HTTPClient(session: MockURLSession(stubs: stubs))

        let error = await #expect(throws: HTTPClientError.self) { try await client.stream(.get("https://api.example.com/feed")) }

        #expect(error?.urlError?.code == .cannotConnectToHost)
    }

    @Test func anyConformingSessionStreamsAtLeastTheWholeBodyAsOneChunk() async throws {
        /// A session of the user's own that implements only the data task.
        struct Minimal: URLSessionProtocol {
            func makeDataTask(
                with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
            ) -> any URLSessionDataTaskProtocol {
                let response = HTTPURLResponse(
                    url: request.url ?? URL(fileURLWithPath: "/"), statusCode: 200, httpVersion: nil, headerFields: nil)
                return Immediate { completionHandler(Data("all of it".utf8), response, nil) }
            }
        }
        final class Immediate: URLSessionDataTaskProtocol, Sendable {
            let run: @Sendable () -> Void
            init(_ run: @escaping @Sendable () -> Void) { self.run = run }
            func resume() { run() }
            func cancel() {}
        }

        let feed = try await HTTPClient(session: Minimal()).stream(.get("https://h/x"))

        #expect(try await feed.chunks.collect(upTo: 100) == Data("all of it".utf8))
    }

    @Test func theCompletionFormHandsOverEachChunkThenTheHead() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://h/feed").respond(.streamed([.text("a"), .text("b")]))
        let chunks = Locked<[Data]>([])
        let client = HTTPClient(session: MockURLSession(stubs: stubs))

        let result = await withCheckedContinuation { continuation in
            client.stream(.get("https://h/feed"), receive: { chunk in chunks.withLock { $0.append(chunk) } }) {
                continuation.resume(returning: $0)
            }
        }

        #expect(try result.get().statusCode == 200)
        #expect(chunks.current == [Data("a".utf8), Data("b".utf8)])
    }

    @Test func theCompletionFormReportsATransferCutShort() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://h/feed").respond(.streamed([.text("a"), .failure(URLError(.networkConnectionLost))]))
        let client = HTTPClient(session: MockURLSession(stubs: stubs))

        let result = await withCheckedContinuation { continuation in
            client.stream(.get("https://h/feed"), receive: { _ in }) { continuation.resume(returning: $0) }
        }

        guard case .failure(let error) = result else {
            Issue.record("a stream cut short must fail, got \(result)")
            return
        }
        #expect(error.urlError?.code == .networkConnectionLost)
    }

    @Test func aStreamLoopCancelledHalfwayThrowsCancelledNotTheEnd() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://h/feed").respond(.streamed([.text("a"), .pause(3600), .text("b")]))
        let client = HTTPClient(session: MockURLSession(stubs: stubs, simulatesLatency: true))
        let (gotChunk, signal) = AsyncStream<Void>.makeStream()
        let reader = Task {
            for try await _ in try await client.stream(.get("https://h/feed")).chunks { signal.yield() }
        }
        var signals = gotChunk.makeAsyncIterator()
        _ = await signals.next()
        reader.cancel()

        let error = await #expect(throws: HTTPClientError.self) { try await reader.value }

        #expect(error?.isCancelled == true)
    }

    @Test func aServerSentEventsLoopCancelledHalfwayThrowsCancelledNotTheEnd() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://h/chat")
            .respond(.streamed(headers: ["Content-Type": "text/event-stream"], [.text("data: 1\n\n"), .pause(3600), .text("data: 2\n\n")]))
        let client = HTTPClient(session: MockURLSession(stubs: stubs, simulatesLatency: true))
        let (gotEvent, signal) = AsyncStream<Void>.makeStream()
        let reader = Task {
            for try await _ in try await client.stream(.get("https://h/chat")).chunks.serverSentEvents() { signal.yield() }
        }
        var signals = gotEvent.makeAsyncIterator()
        _ = await signals.next()
        reader.cancel()

        let error = await #expect(throws: HTTPClientError.self) { try await reader.value }

        #expect(error?.isCancelled == true)
    }

    @Test func theErrorBodyOfARejectedLargeStreamStopsAtItsCap() async throws {
        let part = Data(repeating: UInt8(ascii: "x"), count: 256 << 10)
        let stubs = StubRegistry()
        stubs.stub(.get, "https://h/feed").respond(.streamed(status: 500, Array(repeating: .data(part), count: 64)))
        let client = HTTPClient(session: MockURLSession(stubs: stubs))

        let error = await #expect(throws: HTTPClientError.self) { try await client.stream(.get("https://h/feed")) }

        #expect(error?.response?.body.count == 1 << 20)
    }
}
