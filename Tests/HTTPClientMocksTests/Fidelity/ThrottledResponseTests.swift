import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@testable import HTTPClientStubs

/// A throttled body arrives as a slow network delivers it: in timed chunks, on every transport.
@Suite("Throttled stub bodies")
struct ThrottledResponseTests {
    private let big = URLRequest(url: testURL("https://h/big"))

    private static func chunks(of parts: [StreamPart]) -> [Data] { parts.compactMap(\.data) }
    private static func pauses(of parts: [StreamPart]) -> [TimeInterval] { parts.compactMap(\.pause) }

    // MARK: The plan: what is delivered when

    @Test func aBodyIsCutIntoATenthOfASecondsBytesTheFirstAtOnceEachLaterAfterTheOneBefore() {
        let body = Data(repeating: 1, count: 2_550)
        let parts = Throughput(bytesPerSecond: 1_000).throttling([.data(body)])
        #expect(Self.chunks(of: parts).map(\.count) == Array(repeating: 100, count: 25) + [50])
        #expect(Self.chunks(of: parts).reduce(Data(), +) == body)
        // The first chunk goes out with the head, as a link sends a period's bytes, then waits.
        #expect(parts.first?.data?.count == 100)
        #expect(Self.pauses(of: parts).count == 25)
        #expect(Self.pauses(of: parts).allSatisfy { abs($0 - 0.1) < 1e-9 })
    }

    @Test func sixBytesAtSixBytesASecondAreAllInWithinASecond() {
        let parts = Throughput(bytesPerSecond: 6).throttling([.text("abcdef")])
        #expect(Self.chunks(of: parts).count == 6)
        #expect(abs(Self.pauses(of: parts).reduce(0, +) - 5.0 / 6) < 1e-9)
    }

    @Test func chunksAreAtLeastOneByteAndAtMost64KB() {
        #expect(Self.chunks(of: Throughput(bytesPerSecond: 3).throttling([.data(Data(count: 4))])).map(\.count) == [1, 1, 1, 1])
        let fast = Throughput(bytesPerSecond: 100_000_000).throttling([.data(Data(count: 200_000))])
        #expect(Self.chunks(of: fast).map(\.count) == [65_536, 65_536, 65_536, 3_392])
    }

    @Test func aHugeBodyAtACrawlIsCutIntoAtMostTenThousandChunks() {
        let parts = Throughput(bytesPerSecond: 1).throttling([.data(Data(count: 1_000_000))])
        #expect(Self.chunks(of: parts).count == 10_000)
        #expect(abs(Self.pauses(of: parts).reduce(0, +) - 999_900) < 1e-3)
    }

    @Test func aTotalTimeSpreadsTheBodyOverThatTimeWhateverItsSize() {
        for size in [10, 5_000, 300_000] {
            let parts = Throughput.totalTime(2).throttling([.data(Data(count: size))])
            #expect(abs(Self.pauses(of: parts).reduce(0, +) - 2) < 1e-9, "\(size) bytes")
            #expect(Self.chunks(of: parts).reduce(0) { $0 + $1.count } == size)
        }
        #expect(Self.pauses(of: Throughput.totalTime(2).throttling([])) == [2])
    }

    @Test func aStreamedBodyKeepsItsPausesAndFailureWhenThrottled() {
        let parts = Throughput(bytesPerSecond: 10).throttling([.text("ab"), .pause(5), .failure(URLError(.networkConnectionLost))])
        #expect(Self.pauses(of: parts) == [0.1, 5])
        #expect(Self.chunks(of: parts) == [Data("a".utf8), Data("b".utf8)])
        #expect(parts.last?.failure != nil)
    }

    @Test(arguments: [0, -5, .nan, .infinity])
    func aSpeedOrTimeThatIsNotPositiveAndFiniteDoesNotThrottle(value: Double) {
        let parts: [StreamPart] = [.text("ab")]
        #expect(Self.chunks(of: Throughput(bytesPerSecond: value).throttling(parts)) == [Data("ab".utf8)])
        #expect(Self.pauses(of: Throughput.totalTime(value).throttling(parts)).isEmpty)
    }

    @Test func thePresetsAreOHHTTPStubsSpeeds() {
        let kilobytesPerSecond: [(Throughput, Double)] = [
            (.oneKilobytePerSecond, 1), (.slow, 1.5), (.gprs, 7), (.edge, 16), (.threeG, 400), (.threeGPlus, 900), (.wifi, 1_500),
        ]
        for (preset, speed) in kilobytesPerSecond { #expect(preset == Throughput(bytesPerSecond: speed * 1_000)) }
    }

    // MARK: On the transports

    /// The session under test, timing simulated on every transport.
    private func session(_ transport: Transport, _ stubs: StubRegistry) throws -> any URLSessionProtocol {
        try transport.session(stubs, simulatesLatency: true)
    }

    /// Where a chunk is what one read of a socket returns (documented), slices that come close
    /// together may arrive joined: then only the first's lower bound in time, the bytes and an
    /// upper bound on the count are checked.
    private func chunksArriveAsSlices(on transport: Transport) -> Bool { !transport.differs(in: .chunkBoundaries) }

    @Test(arguments: Transport.allCases)
    func aThrottledBodyStreamsInChunksEachAfterItsTime(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let body = Data(repeating: 7, count: 1_000)
        stubs.stub(.get, "/big").respond(.status(200, body: body).throttled(to: .totalTime(0.4)))
        let clock = ContinuousClock()
        let start = clock.now
        let (chunks, _) = try await session(transport, stubs).chunks(for: big)
        var arrivals: [(data: Data, at: Duration)] = []
        for try await chunk in chunks { arrivals.append((chunk, clock.now - start)) }
        #expect(arrivals.map(\.data).reduce(Data(), +) == body)
        // 2,500 bytes a second: a tenth of a second's worth is 250 bytes.
        if chunksArriveAsSlices(on: transport) {
            #expect(arrivals.map(\.data.count) == [250, 250, 250, 250])
        } else {
            #expect((1...4).contains(arrivals.count))
        }
        // Lower bounds only (a loaded machine can only make a chunk later, or starve the reader
        // until every chunk waits in the buffer): the first goes out with the head, each later
        // one after the time of the one before it (the three share the 0.4 s), the last after
        // the time asked. That the first is not held back to the end is
        // `theFirstChunkOfALongBodyComesAfterItsOwnTimeNotTheWholeBodys`.
        #expect(arrivals[1].at >= .milliseconds(133))
        #expect(try #require(arrivals.last).at >= .milliseconds(400))
    }

    @Test(.timeLimit(.minutes(10)), arguments: Transport.allCases)
    func theFirstChunkOfALongBodyComesAfterItsOwnTimeNotTheWholeBodys(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        // 10 bytes a second, one byte a tenth of a second: 100 s in all.
        stubs.stub(.get, "/big").respond(.status(200, body: Data(count: 1_000)).throttled(to: .totalTime(100)))
        let (chunks, _) = try await session(transport, stubs).chunks(for: big)
        var iterator = chunks.makeAsyncIterator()
        let first = try #require(try await iterator.next())
        #expect(chunksArriveAsSlices(on: transport) ? first == Data(count: 1) : (1..<1_000).contains(first.count))
    }

    @Test func anUntimedMockSessionGivesTheChunksAtOnce() async throws {
        let stubs = StubRegistry()
        // A second of pauses, skipped: ten chunks of 100 bytes at once.
        stubs.stub(.get, "/big").respond(.status(200, body: Data(count: 1_000)).throttled(to: Throughput(bytesPerSecond: 1_000)))
        let (chunks, _) = try await MockURLSession(stubs: stubs).chunks(for: big)
        var count = 0
        for try await _ in chunks { count += 1 }
        #expect(count == 10)
    }

    /// Where a download task cannot be answered (documented), it fails instead.
    @Test(arguments: Transport.allCases)
    func aDownloadsProgressReportsEachChunk(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/big").respond(.status(200, body: Data(count: 1_000)).throttled(to: .totalTime(0.4))).allowingUnused()
        let reports = Locked<[TransferProgress]>([])
        let client = HTTPClient(session: try session(transport, stubs))
        let download = { try await client.download(.get("https://h/big")) { progress in reports.withLock { $0.append(progress) } } }

        if transport.differs(in: .downloadTasks) {
            await #expect(throws: HTTPClientError.self) { try await download() }
            return
        }
        let file = try await download()
        defer { try? FileManager.default.removeItem(at: file.fileURL) }

        let bytes = reports.current.map(\.bytes)
        if chunksArriveAsSlices(on: transport) {
            #expect(bytes == [250, 500, 750, 1_000])
        } else {
            #expect(bytes.last == 1_000 && bytes == bytes.sorted() && (1...4).contains(bytes.count))
        }
    }

    @Test(arguments: Transport.allCases)
    func aCallerOfTheWholeBodyGetsItOnceItsTotalTimeIsUp(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/big").respond(.status(200, body: Data("slow".utf8)).throttled(to: .totalTime(0.3)))
        let clock = ContinuousClock()
        let start = clock.now
        let (data, _) = try await session(transport, stubs).data(for: big)
        #expect(data == Data("slow".utf8))
        #expect(clock.now - start >= .milliseconds(300))
    }

    @Test(arguments: Transport.allCases)
    func aHundredThrottledStreamsAtOnceEachGetTheirWholeBody(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/big/{n}").respond(
            .computed { request in
                .status(200, body: Data((request.pathParameters["n"] ?? "").utf8)).throttled(to: .totalTime(0.2))
            })
        let session = try session(transport, stubs)
        let bodies = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
            for n in 0..<100 {
                group.addTask {
                    let (chunks, _) = try await session.chunks(for: URLRequest(url: testURL("https://h/big/\(n)")))
                    var body = Data()
                    for try await chunk in chunks { body.append(chunk) }
                    return (n, body)
                }
            }
            return try await group.reduce(into: [Int: Data]()) { $0[$1.0] = $1.1 }
        }
        #expect(bodies.count == 100)
        #expect(bodies.allSatisfy { $0.value == Data(String($0.key).utf8) })
    }

    @Test(arguments: Transport.allCases)
    func aReaderCancelledHalfwayGetsNoMoreChunks(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        // A byte a second: 100 chunks over 99 s, longer than any run takes to cancel after the first.
        stubs.stub(.get, "/big").respond(.status(200, body: Data(count: 100)).throttled(to: Throughput(bytesPerSecond: 1)))
        let session = try session(transport, stubs)
        let received = Locked<[Data]>([])
        let (gotChunk, signal) = AsyncStream<Void>.makeStream()
        let reader = Task {
            let (chunks, _) = try await session.chunks(for: big)
            for try await chunk in chunks {
                received.withLock { $0.append(chunk) }
                signal.yield()
            }
        }
        var signals = gotChunk.makeAsyncIterator()
        _ = await signals.next()
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        #expect(received.current.count < 100)
    }

    // MARK: The timeout

    /// `big`, timing out after `seconds` of silence.
    private func big(timingOutAfter seconds: TimeInterval) -> URLRequest {
        var request = big
        request.timeoutInterval = seconds
        return request
    }

    // Whole seconds: a real session's client keeps its timeout in whole seconds (documented).

    @Test(.timeLimit(.minutes(10)), arguments: Transport.allCases)
    func aBodyThatGoesQuietLongerThanTheTimeoutTimesOut(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        // One byte after ten minutes of silence, and a timeout of a second: URLSession's timeout
        // counts from the last byte, so it fires before the byte comes.
        stubs.stub(.get, "/big").respond(.status(200, body: Data(count: 1)).throttled(to: .totalTime(600)))
        let session = try session(transport, stubs)
        let error = await #expect(throws: (any Error).self) { try await session.data(for: big(timingOutAfter: 1)) }
        #expect((error as? URLError)?.code == .timedOut)
    }

    @Test(.timeLimit(.minutes(10)), arguments: Transport.allCases)
    func aStreamThatWouldTakeAgesEndsAtTheTimeoutInsteadOfHanging(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/big").respond(.status(200, body: Data(count: 10)).throttled(to: .totalTime(1e300)))
        let session = try session(transport, stubs)
        let error = await #expect(throws: (any Error).self) {
            let (chunks, _) = try await session.chunks(for: big(timingOutAfter: 1))
            for try await _ in chunks {}
        }
        #expect((error as? URLError)?.code == .timedOut)
    }

    @Test(arguments: Transport.allCases)
    func chunksThatEachComeWithinTheTimeoutDoNotTimeOutHoweverLongTheWhole(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        // 25 chunks a tenth of a second apart: 2.5 s in all, against a timeout of 2 s.
        stubs.stub(.get, "/big").respond(.status(200, body: Data(count: 1_000)).throttled(to: .totalTime(2.5)))
        let (data, _) = try await session(transport, stubs).data(for: big(timingOutAfter: 2))
        #expect(data.count == 1_000)
    }
}
