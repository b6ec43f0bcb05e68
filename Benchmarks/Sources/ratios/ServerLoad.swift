import Foundation
import HTTPClientStubs
import LoopbackServer
import Scenarios

// (13) StubServer under load beside the SwiftNIO server of IntegrationTests, both in processes of
// their own, both driven by wrk (Debian's package: `apt-get install wrk`) with the same route:
// requests per second at 16, 64 and 256 connections, the server's CPU per request at 1 to 256,
// its threads after 256, and new connections per second (`Connection: close`). Rounds alternate
// which server goes first; each figure is the median of the per-round ratios.
// `ratios --server-load` runs these rows alone.

/// A server child: `ratios --serve` (SwiftNIO) or `ratios --serve-stubs` (StubServer), its
/// process id, and the URL of its 100-byte route.
struct ServerChild {
    let process: Process
    let input: Pipe
    let url: String

    init(_ flag: String, executable: String) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [flag]
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")), let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty {
            line.append(byte)
        }
        url = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) + "/bytes/100"
    }

    /// CPU seconds the process has used (user and system), from /proc.
    var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return .nan }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // Fields 14 and 15 of stat(5) (utime, stime), counted from the state (field 3) here.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The threads the process has now, from /proc.
    var threads: Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("Threads:") }
        return line.flatMap { Int($0.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) } ?? -1
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// One wrk run: requests per second and requests made.
func wrk(_ url: String, connections: Int, seconds: Int, closing: Bool = false) throws -> (rate: Double, requests: Double) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/wrk")
    process.arguments =
        ["-t", String(min(2, connections)), "-c", String(connections), "-d", "\(seconds)s"]
        + (closing ? ["-H", "Connection: close"] : []) + [url]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    func number(after label: String) -> Double? {
        guard let line = text.split(separator: "\n").first(where: { $0.contains(label) }) else { return nil }
        return line.split(separator: " ").compactMap { Double($0) }.first
    }
    let requests = text.split(separator: "\n").first { $0.contains("requests in") }
        .flatMap { $0.trimmingCharacters(in: .whitespaces).split(separator: " ").first.flatMap { Double($0) } }
    return (number(after: "Requests/sec:") ?? .nan, requests ?? .nan)
}

@MainActor func measureServerLoad(smoke: Bool) throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/wrk") else {
        row("(13) StubServer under wrk", "skipped: wrk is not installed (apt-get install wrk)", "", "")
        return
    }
    let stub = try ServerChild("--serve-stubs", executable: arguments[0])
    let nio = try ServerChild("--serve", executable: arguments[0])
    defer {
        stub.stop()
        nio.stop()
    }
    let seconds = smoke ? 1 : 3
    let rounds = smoke ? 1 : 5
    // Warm both up.
    _ = try wrk(stub.url, connections: 16, seconds: 1)
    _ = try wrk(nio.url, connections: 16, seconds: 1)

    for connections in [1, 16, 64, 256] {
        var rateRatios: [Double] = []
        var cpuRatios: [Double] = []
        var stubRates: [Double] = []
        var nioRates: [Double] = []
        var stubCPU: [Double] = []
        var nioCPU: [Double] = []
        for round in 0..<rounds {
            var measured: [(rate: Double, cpu: Double)] = [(0, 0), (0, 0)]
            for index in round.isMultiple(of: 2) ? [0, 1] : [1, 0] {
                let server = index == 0 ? stub : nio
                let before = server.cpuSeconds
                let (rate, requests) = try wrk(server.url, connections: connections, seconds: seconds)
                measured[index] = (rate, (server.cpuSeconds - before) / requests)
            }
            stubRates.append(measured[0].rate)
            nioRates.append(measured[1].rate)
            stubCPU.append(measured[0].cpu)
            nioCPU.append(measured[1].cpu)
            rateRatios.append(measured[0].rate / measured[1].rate)
            cpuRatios.append(measured[0].cpu / measured[1].cpu)
        }
        let target = connections == 1 ? "CPU <= 2x" : ">= 0.7x requests/s, CPU <= 2x"
        row(
            "(13) \(connections) keep-alive connection\(connections == 1 ? "" : "s"), wrk: requests/s and CPU per request, StubServer / SwiftNIO",
            String(
                format: "%.0f / %.0f requests/s; %.1f / %.1f µs CPU", Measure.median(stubRates), Measure.median(nioRates),
                Measure.median(stubCPU) * 1e6, Measure.median(nioCPU) * 1e6),
            String(
                format: "%.2fx requests/s, %.2fx CPU (medians of %d rounds' ratios)", Measure.median(rateRatios), Measure.median(cpuRatios),
                rounds),
            target)
    }
    row(
        "(13) threads after 256 connections: StubServer / SwiftNIO", "\(stub.threads) / \(nio.threads)", "",
        "bounded by the cores, not the connections")

    var connectionRatios: [Double] = []
    var stubConnections: [Double] = []
    var nioConnections: [Double] = []
    for round in 0..<rounds {
        var rates = [0.0, 0.0]
        for index in round.isMultiple(of: 2) ? [0, 1] : [1, 0] {
            rates[index] = try wrk(index == 0 ? stub.url : nio.url, connections: 16, seconds: seconds, closing: true).rate
        }
        stubConnections.append(rates[0])
        nioConnections.append(rates[1])
        connectionRatios.append(rates[0] / rates[1])
    }
    row(
        "(13) new connections per second (`Connection: close`, 16 at once), wrk: StubServer / SwiftNIO",
        String(format: "%.0f / %.0f", Measure.median(stubConnections), Measure.median(nioConnections)),
        String(format: "%.2fx (median of %d rounds' ratios)", Measure.median(connectionRatios), rounds), ">= 0.8x")
}
