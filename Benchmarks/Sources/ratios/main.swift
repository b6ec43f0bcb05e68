import Foundation
import HTTPClient
@_spi(Engine) import HTTPClientStubs
import LoopbackServer
import Scenarios

// Prints the side-by-side table of BENCHMARKS.md from ONE run, so ratios compare numbers taken
// on the same machine at the same time. `--smoke` runs every scenario briefly (for CI: it
// checks they work, not how fast they are). `--peers` prints the peer tables alone
// (`PeerTable`), also printed after the full run's table.

let arguments = CommandLine.arguments
let smoke = arguments.contains("--smoke")

func iterations(_ full: Int) -> Int { smoke ? max(1, full / 100) : full }

func formatTime(_ seconds: Double) -> String {
    switch seconds {
    case ..<1e-6: String(format: "%.0f ns", seconds * 1e9)
    case ..<1e-3: String(format: "%.2f µs", seconds * 1e6)
    case ..<1: String(format: "%.2f ms", seconds * 1e3)
    default: String(format: "%.2f s", seconds)
    }
}

func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.2fx", a / b) }

/// Runs this executable again with `childArguments` (a measuring child: a fresh process, so its
/// peak memory is its own) and returns what it printed.
func runChild(_ childArguments: [String]) throws -> String {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: arguments[0])
    child.arguments = childArguments
    let pipe = Pipe()
    child.standardOutput = pipe
    try child.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    child.waitUntilExit()
    return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

// MARK: Profiling one scenario alone: `ratios --profile-mocked N` (for callgrind);

// `--profile-floor N` runs the floor alone, to compare instruction counts.
for (flag, scenario) in [("--profile-mocked", Scenarios.mockedGet), ("--profile-floor", Scenarios.floor)] {
    if let index = arguments.firstIndex(of: flag), index + 1 < arguments.count, let count = Int(arguments[index + 1]) {
        let operation = scenario()
        for _ in 0..<count { operation() }
        exit(0)
    }
}

// `--peers-run`: one run of the peer table, printed as `key value` lines for `--peers`.
if arguments.contains("--peers-run") {
    print(PeerTable.lines(await PeerTable.measureOnce(smoke ? .smoke : PeerTable.Settings(parsing: arguments))))
    exit(0)
}

/// The `--peers` tables: `--runs N` child processes (5 unless given; one, in process, with `--smoke`).
@MainActor func peerTables() async throws -> String {
    let settings = smoke ? .smoke : PeerTable.Settings(parsing: arguments)
    let runs = smoke ? 1 : arguments.firstIndex(of: "--runs").flatMap { $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil } ?? 5
    return PeerTable.markdown(try await PeerTable.measure(runs: max(1, runs), settings, executable: arguments[0]), settings)
}

// `--profile-match K STUBS N`: N matches of the oldest of STUBS stubs of configuration K (its
// index in `StubConfiguration.allCases`), for callgrind.
if let index = arguments.firstIndex(of: "--profile-match"), index + 3 < arguments.count,
    let kind = Int(arguments[index + 1]), StubConfiguration.allCases.indices.contains(kind),
    let stubs = Int(arguments[index + 2]), let count = Int(arguments[index + 3])
{
    let (registry, first, _) = StubConfiguration.allCases[kind].registry(stubs: stubs)
    let request = RecordedRequest(first)
    for _ in 0..<count where registry.firstMatch(for: request) == nil { fatalError("no match") }
    exit(0)
}

// `--profile-json N`: N parses of the JSON body of the (11) throughput row, for callgrind.
if let index = arguments.firstIndex(of: "--profile-json"), index + 1 < arguments.count, let count = Int(arguments[index + 1]) {
    let body = LargeInputs.json(records: 2_000, secret: "not-a-secret")
    for _ in 0..<count where LargeInputs.jsonPost(body).json == nil { fatalError("not JSON") }
    exit(0)
}

// `ratios --profile-loopback - N`: N sequential loopback GETs, raw then HTTPClient in
// alternating rounds, printing CPU and wall time per request of each.
if let index = arguments.firstIndex(of: "--profile-loopback"), index + 2 < arguments.count, let count = Int(arguments[index + 2]) {
    let server = try await LoopbackServer.start()
    let session = URLSession(configuration: .ephemeral)
    let client = HTTPClient(session: session)
    let url = server.baseURL.appendingPathComponent("bytes/100")
    for round in 0..<4 {
        for raw in round.isMultiple(of: 2) ? [true, false] : [false, true] {
            let (cpu, wall) = (Measure.cpuSeconds(), DispatchTime.now().uptimeNanoseconds)
            for _ in 0..<count {
                if raw { await Scenarios.rawGet(session, url) } else { _ = try await client.get(url) }
            }
            let perCPU = (Measure.cpuSeconds() - cpu) / Double(count) * 1e6
            let perWall = Double(DispatchTime.now().uptimeNanoseconds - wall) / Double(count) / 1e3
            print(raw ? "raw   " : "client", String(format: "cpu %.1f us  wall %.1f us per request", perCPU, perWall))
        }
    }
    try await server.stop()
    exit(0)
}

// MARK: The peak-memory child: a fresh process, so its peak is this request's alone.

if let index = arguments.firstIndex(of: "--peak-memory-child"), index + 2 < arguments.count, let size = Int(arguments[index + 2]) {
    let raw = arguments[index + 1] == "raw"
    let server = try await LoopbackServer.start()
    let session = URLSession(configuration: .ephemeral)
    let client = HTTPClient(session: session, baseURL: server.baseURL)
    let url = server.baseURL.appendingPathComponent("bytes/\(size)")
    _ = try await client.send(.get("bytes/1024"))  // load everything the request path needs first
    let baseline = Measure.residentBytes()
    if raw {
        await Scenarios.rawGet(session, url)
    } else {
        let response = try await client.get(url)
        guard response.body.count == size else { fatalError("short body: \(response.body.count) of \(size)") }
    }
    print("\(Measure.peakResidentBytes() - baseline)")
    try await server.stop()
    exit(0)
}

// `ratios --serve`: the loopback server alone, until stdin closes (its URL on stdout), so a
// transfer child can measure its memory without the server's in the same process.
if arguments.contains("--serve") {
    let server = try await LoopbackServer.start()
    print(server.baseURL.absoluteString)
    fflush(nil)
    _ = FileHandle.standardInput.readDataToEndOfFile()
    try await server.stop()
    exit(0)
}

// `ratios --serve-stubs`: a StubServer answering `/bytes/100` as the loopback server does (the
// same 100 bytes), until stdin closes (its URL on stdout): the other side of (13).
if arguments.contains("--serve-stubs") {
    let stubs = StubRegistry("load", reporting: .disabled)
    stubs.stub(.get, "/bytes/100").respond(
        .status(200, headers: ["Content-Type": "application/octet-stream"], body: Data((0..<100).map(patternByte))))
    let server = try StubServer(stubs)
    print(server.baseURL.absoluteString)
    fflush(nil)
    _ = FileHandle.standardInput.readDataToEndOfFile()
    server.stop()
    exit(0)
}

// The transfer child: `--transfer-child download|upload SIZE` moves SIZE bytes between a file
// and the loopback server through `HTTPClient` and prints its peak memory above the baseline.
if let index = arguments.firstIndex(of: "--transfer-child"), index + 2 < arguments.count, let size = Int(arguments[index + 2]) {
    // `--server URL` uses a server in another process; otherwise one starts here.
    let external = arguments.firstIndex(of: "--server").flatMap { $0 + 1 < arguments.count ? URL(string: arguments[$0 + 1]) : nil }
    let server = external == nil ? try await LoopbackServer.start() : nil
    let client = HTTPClient(session: URLSession(configuration: .ephemeral), baseURL: external ?? server?.baseURL)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("httpclient-transfer-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("body")
    let upload = arguments[index + 1] == "upload"
    if upload { try Scenarios.writePatternFile(file, size: size) }
    // Everything the path needs is loaded first (the companion session included).
    if upload {
        let small = folder.appendingPathComponent("warm-up")
        try Scenarios.writePatternFile(small, size: 1024)
        _ = try await client.upload(.post("upload"), from: .file(small), progress: { _ in })
    } else {
        _ = try await client.download(.get("bytes/1024"), to: file)
    }
    let baseline = Measure.residentBytes()
    if upload {
        // Disk too: the free space of the temporary directory's file system, sampled while the
        // file is sent (a copy of the file, as a session given one would need, shows as its size).
        let disk = DiskWatch(FileManager.default.temporaryDirectory)
        let response = try await client.upload(.post("upload"), from: .file(file), progress: { _ in })
        let diskRise = disk.stop()
        guard response.text?.contains("\"count\":\(size)") == true else { fatalError("the server saw \(response.text ?? "")") }
        print("\(Measure.peakResidentBytes() - baseline) \(diskRise)")
        try await server?.stop()
        exit(0)
    } else {
        let downloaded =
            arguments[index + 1] == "download-progress"
            ? try await client.download(.get("bytes/\(size)"), to: file, progress: { _ in })
            : try await client.download(.get("bytes/\(size)"), to: file)
        guard (try? downloaded.fileURL.resourceValues(forKeys: [.fileSizeKey]).fileSize) == size else { fatalError("short file") }
    }
    print("\(Measure.peakResidentBytes() - baseline)")
    try await server?.stop()
    exit(0)
}

// The recording child: records one response of the given size through a cassette and prints
// its peak memory above the baseline.
if let index = arguments.firstIndex(of: "--record-child"), index + 2 < arguments.count, let size = Int(arguments[index + 1]) {
    let body =
        arguments[index + 2] == "json"
        ? LargeInputs.json(records: size / 100, secret: "not-the-secret")
        : LargeInputs.binary(size: size)
    let upstream = LargeInputs.upstream(answering: body)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("httpclient-record-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let session = try CassetteSession(
        file: folder.appendingPathComponent("large.json"), mode: .all, upstream: upstream,
        redaction: .standard.secret("not-in-the-body"), reporting: .disabled)
    let client = HTTPClient(session: session)
    let baseline = Measure.residentBytes()
    // The peak is the process's highest ever: it must not already be above the baseline.
    guard Measure.peakResidentBytes() - baseline < size / 4 else {
        fatalError(
            "\(arguments[index + 2]): the setup peaked at \(Measure.peakResidentBytes() >> 20) MB, above the baseline of \(baseline >> 20) MB"
        )
    }
    let started = DispatchTime.now().uptimeNanoseconds
    _ = try await client.get(URL(string: "https://h/large") ?? folder)
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    print("\(Measure.peakResidentBytes() - baseline) \(seconds)")
    exit(0)
}

var rows: [(String, String, String, String)] = []  // scenario, measured, ratio, target
@MainActor func row(_ scenario: String, _ measured: String, _ ratio: String, _ target: String) {
    rows.append((scenario, measured, ratio, target))
    FileHandle.standardError.write(Data("  measured: \(scenario): \(measured) \(ratio)\n".utf8))
}

// 9: large inputs stay linear (alone: `ratios --large-inputs`; `--check` fails on a breach of
// the floors below, which are well under the targets so that a noisy machine passes and a
// quadratic regression does not).
var largeInputFailures: [String] = []
@MainActor func measureLargeInputs() throws {
    func throughput(_ bytes: Int, _ seconds: Double, _ scenario: String) -> String {
        let rate = Double(bytes) / seconds / 1_048_576
        if rate < 25 { largeInputFailures.append("\(scenario): \(Int(rate)) MB/s is under the 25 MB/s floor") }
        return String(format: "%.0f MB/s", rate)
    }
    let largeSecret = "SEKRIT-value/1+2"
    let largeJSON = LargeInputs.json(records: smoke ? 14_000 : 140_000, secret: largeSecret)
    let megabytes = largeJSON.count >> 20
    let largePost = LargeInputs.jsonPost(largeJSON)
    // Naming reads no file: any existing folder serves.
    let folder = try FixtureFolder(directory: FileManager.default.temporaryDirectory)
    let naming = Measure.perOperation(iterations: 1, rounds: smoke ? 1 : 3) { _ = folder.fileNames(for: largePost) }
    row("(9) fixture naming, \(megabytes) MB JSON POST", throughput(largeJSON.count, naming, "naming"), "", ">= 100 MB/s")
    let redaction = Redaction.standard.secret(largeSecret)
    let redacting = Measure.perOperation(iterations: 1, rounds: smoke ? 1 : 3) {
        _ = redaction.redacted(body: largeJSON, contentType: "application/json")
    }
    row("(9) redaction, \(megabytes) MB JSON body", throughput(largeJSON.count, redacting, "JSON redaction"), "", ">= 100 MB/s")
    let line = "plain text with % and \\ and S in it, line after line\n"
    let largeText = Data(String(repeating: line, count: (smoke ? 10 << 20 : 100 << 20) / line.utf8.count).utf8)
    let redactingText = Measure.perOperation(iterations: 1, rounds: smoke ? 1 : 3) {
        _ = redaction.redacted(body: largeText, contentType: "text/plain")
    }
    row(
        "(9) redaction, \(largeText.count >> 20) MB text body", throughput(largeText.count, redactingText, "text redaction"), "",
        ">= 100 MB/s")
    let reportRegistry = StubRegistry("large report", reporting: .disabled)
    var reportLength = 0
    let reporting = Measure.perOperation(iterations: 1, rounds: smoke ? 1 : 3) {
        if case .unmatched(let error) = reportRegistry.resolve(largePost.urlRequest) { reportLength = error.report.description.utf8.count }
    }
    if reportLength > 8 * 1024 { largeInputFailures.append("the report of a \(megabytes) MB body is \(reportLength) bytes long") }
    row("(9) unmatched report, \(megabytes) MB body", "\(formatTime(reporting)), \(reportLength) bytes long", "", "a few KB")
    // A path of many segments beside an exact path, a template and a prefix: each prefix of the
    // path was once looked up in the index, quadratic in its length (100 KB took 6.5 s). Ten
    // times the length must cost about ten times the time, not a hundred.
    let pathRegistry = StubRegistry("long path", reporting: .disabled)
    pathRegistry.stub(.get, "/a/b").respond(.status(200))
    pathRegistry.stub(.get, "/a/{id}").respond(.status(200))
    pathRegistry.stub(.get, .prefix("/a/a/")).respond(.status(204))
    var pathSeconds: [Double] = []
    for segments in smoke ? [5_000, 50_000] : [50_000, 500_000] {
        guard let url = URL(string: "https://h" + String(repeating: "/a", count: segments)) else { continue }
        let longPathRequest = URLRequest(url: url)
        pathSeconds.append(Measure.perOperation(iterations: 1, rounds: smoke ? 1 : 3) { _ = pathRegistry.resolve(longPathRequest) })
    }
    if pathSeconds.count == 2 {
        let growth = pathSeconds[1] / pathSeconds[0]
        if growth > 30 { largeInputFailures.append(String(format: "matching a path 10x as long took %.0fx the time", growth)) }
        row(
            "(9) matching a path of one-letter segments, \(smoke ? 100 : 1_000) KB against a tenth of it",
            "\(formatTime(pathSeconds[1])) vs \(formatTime(pathSeconds[0]))", String(format: "%.1fx", growth), "<= 30x (linear: 10x)")
    }
    let recordSize = smoke ? 10 << 20 : 100 << 20
    for kind in ["binary", "json"] {
        let recordOutput = try runChild(["--record-child", String(recordSize), kind]).split(separator: " ")
        let recordPeak = Double(recordOutput.first.map(String.init) ?? "") ?? .nan
        let recordSeconds = Double(recordOutput.last.map(String.init) ?? "") ?? .nan
        if !(recordPeak <= 2 * Double(recordSize)) {
            largeInputFailures.append(
                String(format: "recording a %@ body peaked at %.2fx the body (target 2x)", kind, recordPeak / Double(recordSize)))
        }
        row(
            "(9) recording a \(recordSize >> 20) MB \(kind) response to a cassette: time, peak memory above baseline",
            String(format: "%@, %.0f MB", formatTime(recordSeconds), recordPeak / 1_048_576),
            String(format: "%.2fx the body", recordPeak / Double(recordSize)), "<= 2x the body")
    }
}

// 10: bodies to and from files, and streams (alone: `ratios --transfers`).
// The slow-stream child: `--slow-stream-child SIZE SLOW --server URL` streams SIZE bytes
// through `HTTPClient.stream`, reading the first SLOW chunks 10 ms apart (a reader far slower
// than loopback: without back-pressure the whole body piles up meanwhile), then the rest at
// once, and prints its peak memory above the baseline.
if let index = arguments.firstIndex(of: "--slow-stream-child"), index + 2 < arguments.count,
    let size = Int(arguments[index + 1]), let slowChunks = Int(arguments[index + 2])
{
    let external = arguments.firstIndex(of: "--server").flatMap { $0 + 1 < arguments.count ? URL(string: arguments[$0 + 1]) : nil }
    let server = external == nil ? try await LoopbackServer.start() : nil
    let client = HTTPClient(session: URLSession(configuration: .ephemeral), baseURL: external ?? server?.baseURL)
    // Everything the path needs is loaded first (the companion session included).
    _ = try await client.stream(.get("bytes/1024")).chunks.collect(upTo: 4096)
    let baseline = Measure.residentBytes()
    let streamed = try await client.stream(.get("bytes/\(size)"))
    var (read, chunks) = (0, 0)
    for try await chunk in streamed.chunks {
        read += chunk.count
        chunks += 1
        if chunks <= slowChunks { try await Task.sleep(nanoseconds: 10_000_000) }
    }
    guard read == size else { fatalError("read \(read) of \(size) bytes") }
    print("\(Measure.peakResidentBytes() - baseline)")
    try await server?.stop()
    exit(0)
}

@MainActor func measureTransfers() async throws {
    let size = smoke ? 10 << 20 : 100 << 20
    // The server runs in a process of its own: in the measuring process, its allocations (NIO's
    // buffers, malloc's arenas) showed up as spikes of 15-50 MB in the client's peak.
    let serverProcess = Process()
    serverProcess.executableURL = URL(fileURLWithPath: arguments[0])
    serverProcess.arguments = ["--serve"]
    let serverInput = Pipe()
    let serverOutput = Pipe()
    serverProcess.standardInput = serverInput
    serverProcess.standardOutput = serverOutput
    try serverProcess.run()
    defer {
        try? serverInput.fileHandleForWriting.close()
        serverProcess.waitUntilExit()
    }
    var serverLine = Data()
    while !serverLine.contains(UInt8(ascii: "\n")), let byte = try serverOutput.fileHandleForReading.read(upToCount: 1), !byte.isEmpty {
        serverLine.append(byte)
    }
    let serverURL = String(decoding: serverLine, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    func childPeak(_ kind: String, size: Int) throws -> Double {
        Double(try runChild(["--transfer-child", kind, String(size), "--server", serverURL])) ?? .nan
    }
    // Peak memory must not grow with the body: two sizes side by side show it.
    let smallSize = size / 10
    for kind in ["download", "download-progress"] {
        let small = try childPeak(kind, size: smallSize)
        let large = try childPeak(kind, size: size)
        let what = kind == "download" ? "download to a file" : "download to a file, progress reported"
        row(
            "(10) \(what) over loopback: peak memory above baseline, \(smallSize >> 20) MB / \(size >> 20) MB body",
            String(format: "%.1f MB / %.1f MB", small / 1_048_576, large / 1_048_576), "", "<= 16 MB, whatever the size")
    }
    // An upload from a file: memory and the temporary folder's disk stay flat, up to 1 GB.
    let uploadSizes = smoke ? [smallSize, size] : [100 << 20, 1 << 30]
    let uploads = try uploadSizes.map { size -> (memory: Double, disk: Double) in
        let fields = try runChild(["--transfer-child", "upload", String(size), "--server", serverURL]).split(separator: " ")
        return (fields.first.flatMap { Double($0) } ?? .nan, fields.dropFirst().first.flatMap { Double($0) } ?? .nan)
    }
    row(
        "(10) upload from a file over loopback, \(uploadSizes[0] >> 20) MB / \(uploadSizes[1] >> 20) MB body: peak memory above baseline",
        String(format: "%.1f MB / %.1f MB", uploads[0].memory / 1_048_576, uploads[1].memory / 1_048_576), "", "<= 16 MB, whatever the size"
    )
    row(
        "(10) the same: the temporary folder's file system, most space taken while it is sent",
        String(format: "%.1f MB / %.1f MB", uploads[0].disk / 1_048_576, uploads[1].disk / 1_048_576), "", "<= 16 MB (no copy of the file)")

    // A stream read slowly holds one window (ChunkStream.defaultWindow), whatever the body.
    let streamSize = smoke ? 100 << 20 : 1 << 30
    let slowChunks = smoke ? 50 : 300
    let streamPeak = Double(try runChild(["--slow-stream-child", String(streamSize), String(slowChunks), "--server", serverURL])) ?? .nan
    row(
        "(10) a \(streamSize >> 20) MB stream over loopback, its first \(slowChunks) chunks read 10 ms apart: peak memory above baseline",
        String(format: "%.1f MB", streamPeak / 1_048_576), "", "<= 16 MB (the window is 2 MiB)")

    let server = try await LoopbackServer.start()
    let session = URLSession(configuration: .ephemeral)
    let client = HTTPClient(session: session, baseURL: server.baseURL)
    let url = server.baseURL.appendingPathComponent("bytes/\(size)")
    // Throughput: raw `URLSession.download(for:)` and `HTTPClient.download`, in short rounds whose
    // order alternates; the median of the per-round ratios.
    // Four ways in each round, in an order that rotates: raw, the client, raw with a progress
    // delegate, the client with a progress handler.
    let rawProgress = RawProgressDownload()
    var ratios: [[Double]] = [[], [], []]
    var rawSeconds: [Double] = []
    for round in 0..<(smoke ? 4 : 12) {
        var seconds = [Double](repeating: 0, count: 4)
        for offset in 0..<4 {
            let way = (round + offset) % 4
            let start = DispatchTime.now().uptimeNanoseconds
            let file: URL
            switch way {
            case 0: (file, _) = try await session.download(for: URLRequest(url: url), delegate: nil)
            case 1: file = try await client.download(.get(url)).fileURL
            case 2: file = await rawProgress.download(url)
            default: file = try await client.download(.get(url), progress: { _ in }).fileURL
            }
            seconds[way] = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            try? FileManager.default.removeItem(at: file)
        }
        ratios[0].append(seconds[0] / seconds[1])
        ratios[1].append(seconds[0] / seconds[3])
        ratios[2].append(seconds[2] / seconds[3])
        rawSeconds.append(seconds[0])
    }
    let medians = ratios.map { $0.sorted()[$0.count / 2] }
    let rawRate = Double(size) / rawSeconds.sorted()[rawSeconds.count / 2] / 1_048_576
    row(
        "(10) download throughput, \(size >> 20) MB over loopback: `HTTPClient.download` / raw `URLSession.download(for:)`",
        String(format: "raw %.0f MB/s", rawRate), String(format: "%.2fx raw (median of per-round ratios)", medians[0]), ">= 0.9x raw")
    row(
        "(10) the same with a progress handler (the companion session's delegate): against raw / raw with a progress delegate", "",
        String(format: "%.2fx raw / %.2fx raw with progress", medians[1], medians[2]), ">= 0.9x raw with progress")

    // Hand-off: each event's data is the uptime when the server wrote it.
    var delays: [Double] = []
    for try await event in try await client.stream(.get("stamped-events/\(smoke ? 20 : 200)")).chunks.serverSentEvents() {
        guard let sent = UInt64(event.data) else { continue }
        delays.append(Double(DispatchTime.now().uptimeNanoseconds - sent) / 1e9)
    }
    delays.sort()
    row(
        "(10) event stream: server write to caller's loop, median / 99th percentile of \(delays.count) events",
        "\(formatTime(delays[delays.count / 2])) / \(formatTime(delays[min(delays.count - 1, delays.count * 99 / 100)]))", "",
        "<= 1 ms")
    try await server.stop()
}

// 11: every stub configuration at 1,000 and 10,000 stubs, the target registered first and
// last, against one stub of the same configuration; in process through `MockURLSession`, and
// through a real `URLSession` beside a plain canned URLProtocol. Each round builds fresh
// registries (so the stubs' call logs stay small), times every scenario once for a short
// slice, in an order that reverses every other round; the rows are medians of per-round ratios.
@MainActor func measureStubTable() async {
    let sizes = smoke ? [1_000] : [1_000, 10_000]
    let rounds = smoke ? 2 : 7
    let slice = smoke ? 0.002 : 0.02
    let canned = Scenarios.cannedURLProtocolSession()
    for configuration in StubConfiguration.allCases {
        // Per scenario (0: one stub; then first and last for each size), per round.
        var local: [[Double]] = Array(repeating: [], count: 1 + 2 * sizes.count)
        var remote: [[Double]] = Array(repeating: [], count: 2 + 2 * sizes.count)  // the last: canned
        for round in 0..<rounds {
            let built = [configuration.registry(stubs: 1)] + sizes.map { configuration.registry(stubs: $0) }
            var scenarios: [(StubRegistry, URLRequest)] = [(built[0].registry, built[0].first)]
            for many in built.dropFirst() { scenarios += [(many.registry, many.first), (many.registry, many.last)] }
            let mocks = built.map { MockURLSession(stubs: $0.registry) }
            let sessions = built.map { $0.registry.makeURLSession() }
            func owner(_ scenario: Int) -> Int { (scenario + 1) / 2 }  // which registry a scenario uses
            let order = Measure.order(of: scenarios.count, round: round)
            for scenario in order {
                let (_, request) = scenarios[scenario]
                let mock = mocks[owner(scenario)]
                local[scenario].append(Measure.perOperation(forAtLeast: slice) { Scenarios.inProcessRequest(mock, request) })
            }
            for scenario in (round.isMultiple(of: 2) ? [scenarios.count] + order : order + [scenarios.count]) {
                if scenario == scenarios.count {
                    let request = scenarios[0].1
                    remote[scenario].append(await Measure.perOperation(forAtLeast: slice * 4) { await Scenarios.rawGet(canned, request) })
                } else {
                    let (_, request) = scenarios[scenario]
                    let session = sessions[owner(scenario)]
                    remote[scenario].append(await Measure.perOperation(forAtLeast: slice * 4) { await Scenarios.rawGet(session, request) })
                }
            }
            for session in sessions { session.finishTasksAndInvalidate() }
            for mock in mocks { mock.removeAllRecords() }
        }
        // Ratios per round, then their median.
        func medianRatio(_ samples: [[Double]], _ scenario: Int, to reference: Int) -> Double {
            Measure.median(zip(samples[scenario], samples[reference]).map { $0 / $1 })
        }
        let target: String
        switch configuration {
        case .templates: target = "<= 2x"
        case .headers: target = "<= 10x at 1,000 (indexed: <= 1.3x)"
        case .jsonBodies, .scannedHeaders, .scannedBodies: target = "scanned: < 100 ns a rejected candidate"
        default: target = "<= 1.3x"
        }
        for (offset, size) in sizes.enumerated() {
            let (first, last) = (1 + 2 * offset, 2 + 2 * offset)
            var measured = "one stub \(formatTime(Measure.median(local[0])))"
            if !configuration.isIndexed {
                // The oldest is tried after every newer one: the difference is the candidates' cost.
                let perCandidate = Measure.median(zip(local[first], local[0]).map { ($0 - $1) / Double(size - 1) })
                measured += ", \(formatTime(max(perCandidate, 0))) a rejected candidate"
            }
            row(
                "(11) \(configuration.rawValue), \(size.formatted()) stubs, in process (`MockURLSession`): target first / last",
                measured,
                String(format: "%.2fx / %.2fx one stub", medianRatio(local, first, to: 0), medianRatio(local, last, to: 0)), target)
            row(
                "(11) the same through `URLSession` and the stub URLProtocol",
                String(format: "one stub %.2fx the canned URLProtocol", medianRatio(remote, 0, to: remote.count - 1)),
                String(format: "%.2fx / %.2fx one stub", medianRatio(remote, first, to: 0), medianRatio(remote, last, to: 0)), target)
        }
    }

    // A JSON body condition reads the body at this rate: one stub, a body of a few MB,
    // parsed once per request.
    let largeJSON = LargeInputs.json(records: smoke ? 2_000 : 20_000, secret: "not-a-secret")
    var body = Data(#"{"variant": 1, "records": "#.utf8)
    body.append(largeJSON)
    body.append(Data("}".utf8))
    let jsonStubs = StubRegistry("JSON body", reporting: .disabled)
    jsonStubs.stub(.post, "/items").matching(.jsonBody(containing: .object(["variant": .integer(1)])))
    var post = URLRequest(url: Scenarios.fixedURL("https://api.example.com/items"))
    post.httpMethod = "POST"
    post.httpBody = body
    let jsonTime = Measure.perOperation(iterations: smoke ? 2 : 20) {
        if jsonStubs.firstMatch(for: RecordedRequest(post)) == nil { preconditionFailure("the JSON stub did not match") }
    }
    row(
        "(11) `.jsonBody(containing:)` on a \(body.count >> 10) KB body: the body read per second",
        String(format: "%.0f MB/s", Double(body.count) / jsonTime / 1_048_576),
        "", ">= 200 MB/s")
}

if arguments.contains("--stub-table") {
    await measureStubTable()
    for (scenario, measured, ratio, target) in rows { print("| \(scenario) | \(measured) | \(ratio) | \(target) |") }
    exit(0)
}

// `--callgrind SMALL LARGE [--in-process-only]`: instructions per request of every path of
// the peer table (only the in-process ones, a few minutes instead of twenty, with the flag).
if let index = arguments.firstIndex(of: "--callgrind"), index + 2 < arguments.count,
    let small = Int(arguments[index + 1]), let large = Int(arguments[index + 2]), large > small
{
    let inProcessOnly = arguments.contains("--in-process-only")
    print(try PeerTable.callgrindTable(small: small, large: large, executable: arguments[0], inProcessOnly: inProcessOnly))
    exit(0)
}

if arguments.contains("--peers") {
    print(try await peerTables())
    exit(0)
}

if arguments.contains("--stub-server") {
    try await measureStubServer(smoke: smoke)
    for (scenario, measured, ratio, target) in rows { print("| \(scenario) | \(measured) | \(ratio) | \(target) |") }
    exit(0)
}

if arguments.contains("--server-load") {
    try measureServerLoad(smoke: smoke)
    for (scenario, measured, ratio, target) in rows { print("| \(scenario) | \(measured) | \(ratio) | \(target) |") }
    exit(0)
}

if arguments.contains("--transfers") {
    try await measureTransfers()
    for (scenario, measured, ratio, target) in rows { print("| \(scenario) | \(measured) | \(ratio) | \(target) |") }
    exit(0)
}

if arguments.contains("--large-inputs") {
    try measureLargeInputs()
    for (scenario, measured, ratio, target) in rows { print("| \(scenario) | \(measured) | \(ratio) | \(target) |") }
    if arguments.contains("--check"), !largeInputFailures.isEmpty {
        FileHandle.standardError.write(Data(("large inputs: " + largeInputFailures.joined(separator: "; ") + "\n").utf8))
        exit(1)
    }
    exit(0)
}

// 1-2
let mocked = Measure.perOperation(iterations: iterations(200_000), Scenarios.mockedGet())
let floorTime = Measure.perOperation(iterations: iterations(200_000), Scenarios.floor())
row("(2) floor: URLRequest + HTTPURLResponse + closure", formatTime(floorTime), "1.00x", "")
row("(1) `HTTPClient.get` through `MockURLSession`", formatTime(mocked), "\(ratio(mocked, floorTime)) of (2)", "<= 1.5x (2)")

// 3-4
let canned = Scenarios.cannedURLProtocolSession()
let pingURL = URL(string: "https://api.example.com/users/1") ?? URL(fileURLWithPath: "/")
let (stubbedClient, stubbedRegistry) = Scenarios.stubbedURLProtocolClient()
let (rawCanned, stubbed) = try await Measure.interleaved(
    iterations: iterations(2_000), { await Scenarios.rawGet(canned, pingURL) }, { _ = try await stubbedClient.get(pingURL) })
guard let stubbedSession = stubbedClient.session as? URLSession else { fatalError("the stubbed client has no URLSession") }
let rawStubbed = await Measure.perOperation(iterations: iterations(3_000)) { await Scenarios.rawGet(stubbedSession, pingURL) }
withExtendedLifetime(stubbedRegistry) {}  // the session's registry must outlive its requests
row(
    "(3) raw `URLSession` + minimal canned `URLProtocol`", formatTime(rawCanned), "(3) is \(ratio(rawCanned, mocked)) of (1)",
    "(1) >= 50x faster")
row("(4) `HTTPClient.get` through the stub `URLProtocol`", formatTime(stubbed), "\(ratio(stubbed, rawCanned)) of (3)", "<= 1.1x (3)")
row("(4b) raw `URLSession` through the stub `URLProtocol`", formatTime(rawStubbed), "\(ratio(rawStubbed, rawCanned)) of (3)", "")

// 5
for templates in [false, true] {
    let (stubs, newest, oldest) = Scenarios.registryWithTenThousandStubs(templates: templates)
    let kind = templates ? "templates" : "exact routes"
    let newestTime = Measure.perOperation(iterations: iterations(templates ? 2_000 : 200_000)) { _ = stubs.firstMatch(for: newest) }
    let oldestTime = Measure.perOperation(iterations: iterations(templates ? 2_000 : 200_000)) { _ = stubs.firstMatch(for: oldest) }
    row("(5) match among 10,000 stubs, \(kind), newest / oldest", "\(formatTime(newestTime)) / \(formatTime(oldestTime))", "", "about 1 µs")
}

// 5c: one path, many query variants; each size against a single stub, in short rounds whose
// order alternates, as the median of the per-round ratios.
let single = Scenarios.queryVariants(1)
for count in [1_000, 10_000] {
    let variants = Scenarios.queryVariants(count)
    var firstRatios: [Double] = []
    var lastRatios: [Double] = []
    var singleTimes: [Double] = []
    for round in 0..<(smoke ? 2 : 9) {
        let order = round.isMultiple(of: 2) ? [0, 1, 2] : [2, 1, 0]
        var times = [Double](repeating: 0, count: 3)
        for which in order {
            let (stubs, request) =
                which == 0 ? (single.stubs, single.first) : which == 1 ? (variants.stubs, variants.first) : (variants.stubs, variants.last)
            times[which] = Measure.perOperation(iterations: iterations(20_000), rounds: 1) { _ = stubs.firstMatch(for: request) }
        }
        firstRatios.append(times[1] / times[0])
        lastRatios.append(times[2] / times[0])
        singleTimes.append(times[0])
    }
    let median = { (values: [Double]) in values.sorted()[values.count / 2] }
    row(
        "(5c) \(count) stubs on one path differing by query, target registered first / last (one stub: \(formatTime(median(singleTimes))))",
        "", String(format: "%.2fx / %.2fx one stub", median(firstRatios), median(lastRatios)), "<= 1.3x")
}

let resolveRegistry = Scenarios.stubbedURLProtocolClient().1
let pingRequest = URLRequest(url: pingURL)
let resolveTime = Measure.perOperation(iterations: iterations(100_000)) {
    if case .unmatched = resolveRegistry.resolve(pingRequest) { fatalError("the ping stub did not match") }
    if resolveRegistry.requests.count > 10_000 {
        resolveRegistry.reset()
        resolveRegistry.stub(.get, "/users/1").respond(.status(200))
    }
}
row("(5b) the engine's work per request: capture, match, answer", formatTime(resolveTime), "", "")

// 6
let server = try await LoopbackServer.start()
let loopbackSession = URLSession(configuration: .ephemeral)
let loopbackClient = HTTPClient(session: loopbackSession, baseURL: server.baseURL)
let smallURL = server.baseURL.appendingPathComponent("bytes/100")
let (rawLoopback, clientLoopback) = try await Measure.interleaved(
    iterations: iterations(300), { await Scenarios.rawGet(loopbackSession, smallURL) }, { _ = try await loopbackClient.get(smallURL) })
row(
    "(6) loopback GET, sequential: raw `URLSession` / `HTTPClient`", "\(formatTime(rawLoopback)) / \(formatTime(clientLoopback))",
    "\(ratio(clientLoopback, rawLoopback)) of raw", "<= 1.03x raw")
let smallRequest = URLRequest(url: smallURL)
let (rawRequestLoopback, clientLoopback2) = try await Measure.interleaved(
    iterations: iterations(300), { await Scenarios.rawGet(loopbackSession, smallRequest) }, { _ = try await loopbackClient.get(smallURL) })
row(
    "(6b) loopback GET, sequential, raw from a `URLRequest` / `HTTPClient`",
    "\(formatTime(rawRequestLoopback)) / \(formatTime(clientLoopback2))",
    "\(ratio(clientLoopback2, rawRequestLoopback)) of raw", "")
let concurrency = 64
let concurrent = try await Measure.interleaved(
    iterations: iterations(10),
    {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency { group.addTask { await Scenarios.rawGet(loopbackSession, smallURL) } }
        }
    },
    {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency { group.addTask { _ = try await loopbackClient.get(smallURL) } }
            try await group.waitForAll()
        }
    })
let (rawConcurrent, clientConcurrent) = (concurrent.a / Double(concurrency), concurrent.b / Double(concurrency))
row(
    "(6) loopback GET, 64 concurrent (per request): raw / `HTTPClient`", "\(formatTime(rawConcurrent)) / \(formatTime(clientConcurrent))",
    "\(ratio(clientConcurrent, rawConcurrent)) of raw", "<= 1.03x raw")
try await server.stop()

// 7
let bodySize = smoke ? 10 << 20 : 100 << 20
func peakMemory(raw: Bool) throws -> Double {
    Double(try runChild(["--peak-memory-child", raw ? "raw" : "client", String(bodySize)])) ?? .nan
}
let peakRaw = try peakMemory(raw: true)
let peak = try peakMemory(raw: false)
row(
    "(7) peak memory above baseline, \(bodySize >> 20) MB body over loopback: raw `URLSession` / `HTTPClient`",
    String(format: "%.0f MB / %.0f MB", peakRaw / 1_048_576, peak / 1_048_576),
    String(format: "%.2fx / %.2fx the body", peakRaw / Double(bodySize), peak / Double(bodySize)), "<= 1.5x the body")

// 8
let fileSize = smoke ? 4 << 20 : 64 << 20
let file = Scenarios.httpFile(bodySize: fileSize)
let parse = Measure.perOperation(iterations: iterations(20)) {
    _ = try? HTTPResponseFile(parsing: file, file: "bench.http")
}
row(
    "(8) `.http` parsing, \(fileSize >> 20) MB body", String(format: "%.0f MB/s", Double(file.count) / parse / 1_048_576), "", ">= 100 MB/s"
)

let folder = try Scenarios.fixtureFolder(files: 10_000)
let hit = RecordedRequest(URLRequest(url: URL(string: "https://api.example.com/items/9876") ?? pingURL))
let miss = RecordedRequest(URLRequest(url: URL(string: "https://api.example.com/nothing/here?q=1") ?? pingURL))
let hitTime = Measure.perOperation(iterations: iterations(20_000)) { _ = folder.lookUp(hit) }
let missTime = Measure.perOperation(iterations: iterations(20_000)) { _ = folder.lookUp(miss) }
row("(8) fixture lookup in a folder of 10,000 files: found / missed", "\(formatTime(hitTime)) / \(formatTime(missTime))", "", "tens of µs")

let cassette = try Scenarios.cassetteFile(interactions: 10_000)
let load = try await Measure.perOperation(iterations: 1, rounds: smoke ? 1 : 3) {
    _ = try CassetteSession(file: cassette, mode: .none, reporting: .disabled)
}
row("(8) loading a 10,000-interaction cassette (parse + register)", formatTime(load), "", "< 1 s")

await measureStubTable()
try await measureStubServer(smoke: smoke)
try measureServerLoad(smoke: smoke)
try measureLargeInputs()
try await measureTransfers()
let peers = try await peerTables()

// MARK: The table

#if DEBUG
let configuration = "debug build: numbers are NOT representative (use -c release)"
#else
let configuration = "release build"
#endif
print(
    """
    HTTPClient benchmark ratios, \(smoke ? "SMOKE pass (few iterations)" : "full pass"), \(configuration)
    \(ProcessInfo.processInfo.processorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString)

    | scenario | measured | ratio | target |
    | --- | --- | --- | --- |
    """)
for (scenario, measured, ratio, target) in rows {
    print("| \(scenario) | \(measured) | \(ratio) | \(target) |")
}
print("\n" + peers)
