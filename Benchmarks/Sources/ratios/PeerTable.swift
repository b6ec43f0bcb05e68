import Foundation
import HTTPClient
import HTTPClientStubs
import Scenarios

extension MockURLSession: PeerTable.RecordingSession {}
extension HandWrittenMock: PeerTable.RecordingSession {}

/// The peer table (`ratios --peers`): every configuration of stubs it compares through a real
/// `URLSession` (`makeURLSession()`) as a ratio to the minimal canned URLProtocol answering the
/// same request; in process, `HTTPClient`'s `get(url:)` on `MockURLSession` as a ratio to the
/// same call on `HandWrittenMock` (and, secondary, the two sessions alone). Each run gives, per
/// cell, the median of its per-round ratios (`Measure.ratiosToFloor`); runs are separate
/// processes, and the table shows the median of the runs' medians and their range.
enum PeerTable {
    /// How long one run measures.
    struct Settings {
        /// Counted rounds per run.
        var rounds = 9
        /// Seconds each side of a ratio runs per round, through `URLSession`.
        var slice = 0.02
        /// The same in process.
        var inProcessSlice = 0.005

        /// What `--smoke` runs: every scenario once, briefly.
        static let smoke = Settings(rounds: 1, slice: 0.001, inProcessSlice: 0.0005)

        /// The arguments that pass these settings to a child.
        var arguments: [String] { ["--rounds", String(rounds), "--slice", String(slice), "--in-process-slice", String(inProcessSlice)] }

        /// Settings read from `arguments` (the defaults where absent).
        init(rounds: Int = 9, slice: Double = 0.02, inProcessSlice: Double = 0.005) {
            (self.rounds, self.slice, self.inProcessSlice) = (rounds, slice, inProcessSlice)
        }

        init(parsing arguments: [String]) {
            func value(after flag: String) -> String? {
                arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
            }
            self.init()
            if let rounds = value(after: "--rounds").flatMap(Int.init) { self.rounds = max(1, rounds) }
            if let slice = value(after: "--slice").flatMap(Double.init) { self.slice = slice }
            if let slice = value(after: "--in-process-slice").flatMap(Double.init) { inProcessSlice = slice }
        }
    }

    /// The key of a cell's result: `peer paths-1000-last-url`, `in-process ...` (through the
    /// client), `next-data`, `session-alone ...`, and the floors' seconds per request.
    typealias Results = [String: Double]

    /// A mock whose recorded requests can be dropped between slices.
    protocol RecordingSession { func removeAllRecords() }

    static let nextData = "next-data"
    static let cannedSeconds = "canned-seconds"
    static let handWrittenSeconds = "hand-written-seconds"
    static func peerKey(_ cell: PeerScenario) -> String { "peer \(cell)" }
    static func inProcessKey(_ cell: PeerScenario) -> String { "in-process \(cell)" }
    static let sessionAloneSeconds = "session-alone-hand-written-seconds"
    /// A cell's session-alone key, or `nextData`'s for `nil`.
    static func sessionAloneKey(_ cell: PeerScenario?) -> String { "session-alone \(cell.map(\.description) ?? nextData)" }

    // MARK: One run

    /// One run of every cell, in this process.
    @MainActor
    static func measureOnce(_ settings: Settings) async -> Results {
        let cells = PeerScenario.all
        var results = Results()

        // Through URLSession: the stub URLProtocol against the canned one, same request.
        let canned = Scenarios.cannedURLProtocolSession()
        let peers = cells.map { $0.prepare() }
        let sessions = peers.map { $0.registry.makeURLSession() }
        var cannedTimes: [Double] = []
        let peerRatios = await Measure.ratiosToFloor(scenarios: cells.count, rounds: settings.rounds) { index, floor in
            let (session, request) = (floor ? canned : sessions[index], peers[index].request)
            let seconds = await Measure.perOperation(forAtLeast: settings.slice) { await Scenarios.rawGet(session, request) }
            if floor { cannedTimes.append(seconds) }
            return seconds
        }
        for session in sessions + [canned] { session.finishTasksAndInvalidate() }
        for (cell, ratios) in zip(cells, peerRatios) { results[peerKey(cell)] = Measure.median(ratios) }
        results[cannedSeconds] = Measure.median(cannedTimes)

        // In process, as a test uses a mock: the code under test calls `HTTPClient`'s completion
        // get/post (`Scenarios.clientCall`) on a client made with `MockURLSession(stubs:)` per
        // cell, then with `MockURLSession()` answering `nextData`, each against the same call on
        // a client made with `HandWrittenMock`. Then the same sessions alone (a data task, no
        // client), as a secondary set.
        let inProcess = cells.map { $0.prepare() }
        let plain = MockURLSession()
        plain.nextData = Data("ok".utf8)
        let mocks = inProcess.map { MockURLSession(stubs: $0.registry) } + [plain]
        let requests = inProcess.map(\.request) + [inProcess[0].request]
        let handWritten = requests.map { _ in HandWrittenMock() }
        for (mock, request) in zip(mocks, requests) where !answersInsideResume(mock, request) {
            preconditionFailure("MockURLSession no longer answers inside resume(): the in-process ratios would time half a request")
        }
        let viaClient = await inProcessRatios(
            settings, mocks: zip(mocks, requests).map { Scenarios.clientCall($0, $1) },
            floors: zip(handWritten, requests).map { Scenarios.clientCall($0, $1) }, sessions: mocks + handWritten)
        for (cell, ratios) in zip(cells, viaClient.ratios) { results[inProcessKey(cell)] = Measure.median(ratios) }
        results[nextData] = Measure.median(viaClient.ratios[cells.count])
        results[handWrittenSeconds] = viaClient.floorSeconds

        let alone = await inProcessRatios(
            settings, mocks: zip(mocks, requests).map { session, request in { Scenarios.inProcessRequest(session, request) } },
            floors: zip(handWritten, requests).map { session, request in { Scenarios.inProcessRequest(session, request) } },
            sessions: mocks + handWritten)
        for (cell, ratios) in zip(cells, alone.ratios) { results[sessionAloneKey(cell)] = Measure.median(ratios) }
        results[sessionAloneKey(nil)] = Measure.median(alone.ratios[cells.count])
        results[sessionAloneSeconds] = alone.floorSeconds
        return results
    }

    /// Per-round ratios of each of `mocks` to the floor call beside it in `floors`, and the
    /// floors' median seconds a request. `sessions` are forgotten after every slice, so memory
    /// stays flat.
    @MainActor
    private static func inProcessRatios(
        _ settings: Settings, mocks: [() -> Void], floors: [() -> Void], sessions: [any RecordingSession]
    ) async -> (ratios: [[Double]], floorSeconds: Double) {
        var floorTimes: [Double] = []
        let ratios = await Measure.ratiosToFloor(scenarios: mocks.count, rounds: settings.rounds) { index, floor in
            let seconds = Measure.perOperation(forAtLeast: settings.inProcessSlice, floor ? floors[index] : mocks[index])
            for session in sessions { session.removeAllRecords() }
            if floor { floorTimes.append(seconds) }
            return seconds
        }
        return (ratios, Measure.median(floorTimes))
    }

    /// Whether `session` calls the completion before `resume()` returns.
    private static func answersInsideResume(_ session: any URLSessionProtocol, _ request: URLRequest) -> Bool {
        let answered = DispatchSemaphore(value: 0)
        session.makeDataTask(with: request) { _, _, _ in answered.signal() }.resume()
        return answered.wait(timeout: .now()) == .success
    }

    /// A run's results as lines `key value`, as a child prints them.
    static func lines(_ results: Results) -> String {
        results.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: "\n")
    }

    /// Results read back from `lines(_:)`.
    static func parse(_ text: String) -> Results {
        var results = Results()
        for line in text.split(separator: "\n") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            results[String(line[..<space])] = value
        }
        return results
    }

    // MARK: Several runs, and the table

    /// Every run's results: `runs` child processes of this executable (`--peers-run`), or one
    /// run here when `runs` is 1.
    @MainActor
    static func measure(runs: Int, _ settings: Settings, executable: String) async throws -> [Results] {
        guard runs > 1 else { return [await measureOnce(settings)] }
        var all: [Results] = []
        for run in 1...runs {
            FileHandle.standardError.write(Data("  peers: run \(run) of \(runs)\n".utf8))
            let child = Process()
            child.executableURL = URL(fileURLWithPath: executable)
            child.arguments = ["--peers-run"] + settings.arguments
            let pipe = Pipe()
            child.standardOutput = pipe
            try child.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            child.waitUntilExit()
            guard child.terminationStatus == 0 else {
                let message = "run \(run) of \(runs) (\(executable) --peers-run) exited with status \(child.terminationStatus)"
                throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: message])
            }
            all.append(parse(String(decoding: output, as: UTF8.self)))
        }
        return all
    }

    /// The Markdown of the two tables, rows ready to paste into BENCHMARKS.md.
    static func markdown(_ runs: [Results], _ settings: Settings) -> String {
        let values = { (key: String) in runs.compactMap { $0[key] } }
        /// `1.36 (1.30-1.42)`: the median of the runs' medians, and their range.
        func figure(_ key: String) -> String {
            let all = values(key)
            guard let low = all.min(), let high = all.max() else { return "-" }
            let median = String(format: "%.2f", Measure.median(all))
            return all.count == 1 ? median : median + String(format: " (%.2f-%.2f)", low, high)
        }
        func cells(_ cells: [PeerScenario], _ registration: StubConfiguration.Registration, _ key: (PeerScenario) -> String) -> String {
            cells.filter { $0.registration == registration }.map { figure(key($0)) }.joined(separator: " / ")
        }
        func verdict(_ keys: [String], median limit: Double, everyRun bound: Double? = nil) -> String {
            let met = keys.allSatisfy { key in
                let all = values(key)
                return !all.isEmpty && Measure.median(all) <= limit && all.allSatisfy { $0 <= (bound ?? .infinity) }
            }
            return met ? "met" : "missed"
        }
        let floors = [
            "canned URLProtocol \(formatTime(Measure.median(values(cannedSeconds)))) a request",
            "`client.get(url:)` on the hand-written mock \(formatTime(Measure.median(values(handWrittenSeconds))))",
        ]
        var text = """
            The peer table: \(runs.count) run\(runs.count == 1 ? "" : "s") of \(settings.rounds) alternating rounds \
            (\(formatTime(settings.slice)) a side through URLSession, \(formatTime(settings.inProcessSlice)) in process); \
            each figure is the median of the runs' medians of per-round ratios, with their range. Floors: \
            \(floors.joined(separator: ", ")).

            | through `URLSession`, ratio to a canned URLProtocol | stubs by full URL | stubs by path | target: <= 1.05x, every run <= 1.10x |
            | --- | --- | --- | --- |

            """
        for (label, row) in PeerScenario.rows {
            let keys = row.map(peerKey)
            text += "| \(label) | \(cells(row, .fullURL, peerKey)) | \(cells(row, .path, peerKey)) | "
            text += "\(verdict(keys, median: 1.05, everyRun: 1.10)) |\n"
        }
        text += """

            | in process, `client.get(url:)` on `MockURLSession(stubs:)`, ratio to the same call on a hand-written mock | stubs by full URL | stubs by path | target: <= 1.3x |
            | --- | --- | --- | --- |

            """
        for (label, row) in PeerScenario.rows {
            text += "| \(label) | \(cells(row, .fullURL, inProcessKey)) | \(cells(row, .path, inProcessKey)) | "
            text += "\(verdict(row.map(inProcessKey), median: 1.3)) |\n"
        }
        text += "| `MockURLSession()` answering `nextData` (target <= 1.1x) | \(figure(nextData)) | | "
        text += "\(verdict([nextData], median: 1.1)) |\n"
        text += """

            Session alone (secondary, not the table's floor): a data task on `MockURLSession(stubs:)` \
            against one on the hand-written mock, no client; the hand-written mock \
            \(formatTime(Measure.median(values(sessionAloneSeconds)))) a request.

            | session alone, ratio to the hand-written mock's data task | stubs by full URL | stubs by path |
            | --- | --- | --- |

            """
        for (label, row) in PeerScenario.rows {
            text += "| \(label) | \(cells(row, .fullURL, sessionAloneKey)) | \(cells(row, .path, sessionAloneKey)) |\n"
        }
        text += "| `MockURLSession()` answering `nextData` | \(figure(sessionAloneKey(nil))) | |\n"
        return text
    }

    // MARK: Instructions per request

    /// `--callgrind SMALL LARGE [--in-process-only]`: runs each mode of the `profile` executable
    /// (built beside this one; only the in-process modes with `inProcessOnly`) under
    /// `valgrind --tool=callgrind` with SMALL and with LARGE requests, and returns Markdown rows
    /// of instructions per request (the difference over LARGE - SMALL requests, so
    /// start-up and warm-up cancel out). Debug information is stripped from a copy first:
    /// valgrind 3.19 cannot read the DWARF 5 that Swift 6.3 emits.
    static func callgrindTable(small: Int, large: Int, executable: String, inProcessOnly: Bool = false) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ratios-callgrind-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let profile = folder.appendingPathComponent("profile").path
        let strip = Process()
        strip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        strip.arguments = [
            "strip", "--strip-debug", "-o", profile,
            URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("profile").path,
        ]
        try strip.run()
        strip.waitUntilExit()
        /// The instructions callgrind counted for `mode` with `count` requests.
        func instructions(_ mode: [String], _ count: Int) throws -> Double {
            let valgrind = Process()
            valgrind.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            let output = folder.appendingPathComponent("callgrind.out").path
            valgrind.arguments = ["valgrind", "--tool=callgrind", "--callgrind-out-file=\(output)", profile] + mode + [String(count)]
            let pipe = Pipe()
            valgrind.standardError = pipe
            valgrind.standardOutput = FileHandle.nullDevice
            try valgrind.run()
            let log = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            valgrind.waitUntilExit()
            // "==123== Collected : 123456789"
            guard valgrind.terminationStatus == 0, let line = log.split(separator: "\n").last(where: { $0.contains("Collected :") }),
                let value = line.split(separator: " ").last.flatMap({ Double($0) })
            else { throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "callgrind failed: \(mode)\n\(log)"]) }
            return value
        }
        func perRequest(_ mode: [String]) throws -> String {
            FileHandle.standardError.write(Data("  callgrind: \(mode.joined(separator: " "))\n".utf8))
            let difference = try instructions(mode, large) - instructions(mode, small)
            let thousands = difference / Double(large - small) / 1_000
            return String(format: thousands < 10 ? "%.1fk" : "%.0fk", thousands)
        }
        /// One column: `mode` over `row`'s cells registered by `registration`, as `first / last`.
        func column(_ row: [PeerScenario], _ registration: StubConfiguration.Registration, _ mode: [String]) throws -> String {
            try row.filter { $0.registration == registration }.map { try perRequest(mode + ["\($0)"]) }.joined(separator: " / ")
        }
        var text = ""
        if !inProcessOnly {
            text += """
                | instructions per request (callgrind, \(large) - \(small) requests) | stub URLProtocol, by full URL | by path | canned URLProtocol |
                | --- | --- | --- | --- |

                """
            for (label, row) in PeerScenario.rows {
                let columns = [
                    try column(row, .fullURL, ["--peer"]), try column(row, .path, ["--peer"]), try column(row, .path, ["--canned"]),
                ]
                text += "| \(label) | \(columns.joined(separator: " | ")) |\n"
            }
            text += "\n"
        }
        text += """
            | instructions per request (callgrind, \(large) - \(small) requests), in process | `client.get(url:)` on `MockURLSession(stubs:)`, by full URL | by path | on the hand-written mock | session alone: `MockURLSession(stubs:)`, by full URL | by path | the hand-written mock |
            | --- | --- | --- | --- | --- | --- | --- |

            """
        for (label, row) in PeerScenario.rows {
            var columns: [String] = []
            for prefix in [[], ["--session-alone"]] {
                columns.append(try column(row, .fullURL, prefix + ["--in-process"]))
                columns.append(try column(row, .path, prefix + ["--in-process"]))
                columns.append(try column(row, .path, prefix + ["--hand-written"]))
            }
            text += "| \(label) | \(columns.joined(separator: " | ")) |\n"
        }
        text += "| `MockURLSession()` answering `nextData` | \(try perRequest(["--next-data"])) | | (as one stub) | "
        text += "\(try perRequest(["--session-alone", "--next-data"])) | | (as one stub) |\n"
        return text
    }
}
