import Benchmark
import Foundation
import HTTPClient
@_spi(Engine) import HTTPClientStubs
import LoopbackServer
import Scenarios

// The same scenarios as `swift run -c release ratios`, with package-benchmark's metrics
// (wall clock, allocations, peak memory). Run: swift package benchmark

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(2), maxIterations: 1_000_000)

    // Fast operations run a thousand times per sample; results are per operation.
    let perThousand = Benchmark.Configuration(scalingFactor: .kilo)

    Benchmark("(1) HTTPClient.get through MockURLSession", configuration: perThousand) { benchmark in
        let get = Scenarios.mockedGet()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { get() }
    }

    Benchmark("(2) floor: URLRequest + HTTPURLResponse + closure", configuration: perThousand) { benchmark in
        let floor = Scenarios.floor()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { floor() }
    }

    Benchmark("(3) raw URLSession + canned URLProtocol") { benchmark async in
        let session = Scenarios.cannedURLProtocolSession()
        let url = URL(fileURLWithPath: "/ping")
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { await Scenarios.rawGet(session, url) }
    }

    Benchmark("(4) HTTPClient.get through the stub URLProtocol") { benchmark async throws in
        let (client, stubs) = Scenarios.stubbedURLProtocolClient()
        let url = URL(fileURLWithPath: "/users/1")
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { _ = try await client.get(url) }
        withExtendedLifetime(stubs) {}
    }

    for templates in [false, true] {
        Benchmark("(5) match among 10,000 stubs, \(templates ? "templates" : "exact routes")", configuration: perThousand) { benchmark in
            let (stubs, newest, oldest) = Scenarios.registryWithTenThousandStubs(templates: templates)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(stubs.firstMatch(for: newest))
                blackHole(stubs.firstMatch(for: oldest))
            }
        }
    }

    Benchmark("(6) loopback GET through HTTPClient, sequential", configuration: .init(maxIterations: 2_000)) { benchmark async throws in
        let server = try await LoopbackServer.start()
        let client = HTTPClient(session: URLSession(configuration: .ephemeral), baseURL: server.baseURL)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { _ = try await client.send(.get("bytes/100")) }
        benchmark.stopMeasurement()
        try await server.stop()
    }

    Benchmark(
        "(7) 100 MB body through HTTPClient over loopback",
        configuration: .init(metrics: [.wallClock, .peakMemoryResident], maxIterations: 3)
    ) { benchmark async throws in
        let server = try await LoopbackServer.start()
        let client = HTTPClient(session: URLSession(configuration: .ephemeral), baseURL: server.baseURL)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try await client.send(.get("bytes/\(100 << 20)")).body.count) }
        benchmark.stopMeasurement()
        try await server.stop()
    }

    Benchmark("(8) .http parsing, 64 MB body", configuration: .init(maxIterations: 50)) { benchmark in
        let file = Scenarios.httpFile(bodySize: 64 << 20)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try? HTTPResponseFile(parsing: file, file: "bench.http")) }
    }

    Benchmark("(8) fixture lookup among 10,000 files", configuration: perThousand) { benchmark in
        guard let folder = try? Scenarios.fixtureFolder(files: 10_000) else { return }
        let request = RecordedRequest(URLRequest(url: URL(fileURLWithPath: "/items/9876")))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(folder.lookUp(request)) }
    }

    Benchmark("(8) load a 10,000-interaction cassette", configuration: .init(maxIterations: 5)) { benchmark in
        guard let file = try? Scenarios.cassetteFile(interactions: 10_000) else { return }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try? CassetteSession(file: file, mode: .none, reporting: .disabled)) }
    }
}
