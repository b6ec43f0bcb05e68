import Foundation
import HTTPClientStubs
import LoopbackServer
import Scenarios

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// (12) StubServer against the SwiftNIO loopback server of IntegrationTests, through the same client
// (URLSession): what a test pays for answering from stubs over a real socket rather than from a
// real server. `ratios --stub-server` runs these rows alone.

/// Rows (12): one GET round trip, and throughput under 64 concurrent keep-alive connections.
@MainActor func measureStubServer(smoke: Bool) async throws {
    let body = Data(repeating: UInt8(ascii: "a"), count: 100)
    let stubs = StubRegistry("benchmark", reporting: .disabled)
    stubs.stub(.get, "/bytes/100").respond(.status(200, headers: ["Content-Type": "application/octet-stream"], body: body))
    let stubServer = try StubServer(stubs)
    let nioServer = try await LoopbackServer.start()
    defer { stubServer.stop() }
    let stubURL = stubServer.baseURL.appendingPathComponent("bytes/100")
    let nioURL = nioServer.baseURL.appendingPathComponent("bytes/100")

    // Sequential round trips, one kept-alive connection to each server, alternating rounds; the
    // ratio is the median of each round's ratio, so drift in the machine's load cancels out.
    let session = URLSession(configuration: .ephemeral)
    let iterations = smoke ? 5 : 300
    let rounds = smoke ? 2 : 9
    for _ in 0..<min(iterations, 50) {
        await Scenarios.rawGet(session, stubURL)
        await Scenarios.rawGet(session, nioURL)
    }
    var stubTimes: [Double] = []
    var nioTimes: [Double] = []
    for round in 0..<rounds {
        for stubFirst in round.isMultiple(of: 2) ? [true, false] : [false, true] {
            let url = stubFirst ? stubURL : nioURL
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<iterations { await Scenarios.rawGet(session, url) }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 / Double(iterations)
            if stubFirst { stubTimes.append(seconds) } else { nioTimes.append(seconds) }
        }
    }
    let ratios = zip(stubTimes, nioTimes).map { $0 / $1 }
    row(
        "(12) GET round trip, same `URLSession`: `StubServer` / the SwiftNIO loopback server",
        "\(formatTime(Measure.median(stubTimes))) / \(formatTime(Measure.median(nioTimes)))",
        String(format: "%.2fx (median of %d rounds' ratios)", Measure.median(ratios), ratios.count), "<= 1.5x")

    // Throughput: 64 workers, each its own kept-alive connection, sending GETs back to back.
    let connections = 64
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = connections
    let wide = URLSession(configuration: configuration)
    let perWorker = smoke ? 2 : 100
    func requestsPerSecond(_ url: URL) async -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<connections {
                group.addTask { for _ in 0..<perWorker { await Scenarios.rawGet(wide, url) } }
            }
        }
        return Double(connections * perWorker) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    _ = await requestsPerSecond(stubURL)
    _ = await requestsPerSecond(nioURL)
    var stubRates: [Double] = []
    var nioRates: [Double] = []
    for round in 0..<(smoke ? 1 : 5) {
        if round.isMultiple(of: 2) {
            stubRates.append(await requestsPerSecond(stubURL))
            nioRates.append(await requestsPerSecond(nioURL))
        } else {
            nioRates.append(await requestsPerSecond(nioURL))
            stubRates.append(await requestsPerSecond(stubURL))
        }
    }
    let stubRate = Measure.median(stubRates)
    let nioRate = Measure.median(nioRates)
    row(
        "(12) throughput, \(connections) concurrent keep-alive connections: `StubServer` / the SwiftNIO loopback server",
        String(format: "%.0f / %.0f requests/s", stubRate, nioRate), String(format: "%.2fx", stubRate / nioRate), "")
    try await nioServer.stop()
}
