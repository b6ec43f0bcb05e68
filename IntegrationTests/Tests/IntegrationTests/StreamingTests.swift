import Foundation
import HTTPClient
import HTTPClientMocks
import LoopbackServer
import Testing

extension ServerSuites {
    /// Bodies read as they arrive, from a real server through `URLSession.chunks(for:)` (a delegate
    /// companion session) and `HTTPClient.stream`, next to the same stream stubbed.
    @Suite("Streaming against a real server", .timeLimit(.minutes(2)))
    struct StreamingTests {
        /// What the server's `/events/{n}` sends.
        static func serverEvents(_ count: Int) -> [ServerSentEvent] {
            (0..<count).map { ServerSentEvent(data: "event \($0)", lastEventID: "\($0)") }
        }

        @Test func anEndlessEventStreamIsReadAsItArrivesAndLettingItGoEndsTheRequest() async throws {
            try await withServer { server, _ in
                var request = URLRequest(url: server.baseURL.appendingPathComponent("events/0"))
                request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
                // A stream that never ends: only delivery as it arrives can yield these events.
                func firstEvents(_ count: Int) async throws -> [ServerSentEvent] {
                    let (chunks, response) = try await session.chunks(for: request)
                    #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "text/event-stream")
                    var events: [ServerSentEvent] = []
                    for try await event in chunks.serverSentEvents() {
                        events.append(event)
                        if events.count == count { break }
                    }
                    return events
                }
                let events = try await firstEvents(3)
                #expect(events == Self.serverEvents(3))
                // The stream was let go: the session cancels the request and the server sees it leave.
                await server.eventStreams.waitUntilEnded(1)
                #expect(server.eventStreams.started == 1)
            }
        }

        @Test func httpClientStreamsServerSentEventsToTheEnd() async throws {
            try await withServer { _, client in
                let feed = try await client.stream(.get("events/5"))
                #expect(feed.head.statusCode == 200)
                var events: [ServerSentEvent] = []
                for try await event in feed.chunks.serverSentEvents() { events.append(event) }
                #expect(events == Self.serverEvents(5))
            }
        }

        @Test func cancellingTheReadingTaskMidwayEndsTheServersStream() async throws {
            try await withServer { server, client in
                let (firstEvent, signal) = AsyncStream<Void>.makeStream()
                let reader = Task {
                    var count = 0
                    for try await _ in try await client.stream(.get("events/0")).chunks.serverSentEvents() {
                        count += 1
                        signal.yield()
                    }
                    return count
                }
                var signals = firstEvent.makeAsyncIterator()
                _ = await signals.next()
                reader.cancel()
                _ = try? await reader.value
                await server.eventStreams.waitUntilEnded(1)
            }
        }

        @Test func theSameStreamStubbedGivesTheSameEventsOnBothTransports() async throws {
            let fromServer = try await withServer { _, client in
                var events: [ServerSentEvent] = []
                for try await event in try await client.stream(.get("events/4")).chunks.serverSentEvents() { events.append(event) }
                return events
            }
            let stubs = StubRegistry()
            stubs.stub(.get, "/events/4").respond(.serverSentEvents(Self.serverEvents(4), pause: 0.01))
            for session in [MockURLSession(stubs: stubs) as any URLSessionProtocol, stubs.makeURLSession()] {
                let client = HTTPClient(session: session, baseURL: URL(string: "https://stubbed.example"))
                var events: [ServerSentEvent] = []
                for try await event in try await client.stream(.get("events/4")).chunks.serverSentEvents() { events.append(event) }
                #expect(events == fromServer)
            }
        }
    }
}
