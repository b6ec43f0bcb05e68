// swift-tools-version:6.1
import PackageDescription

// Benchmarks for HTTPClient, kept out of the root package so its users never fetch them.
// `Scenarios` holds each measured operation once; the ordo-one benchmark target and the
// `ratios` command (the side-by-side table) both run them.
let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "HTTPClient", path: ".."),
        .package(name: "IntegrationTests", path: "../IntegrationTests"),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(
            name: "Scenarios",
            dependencies: [
                .product(name: "HTTPClient", package: "HTTPClient"),
                .product(name: "HTTPClientStubs", package: "HTTPClient"),
                .product(name: "LoopbackServer", package: "IntegrationTests"),
            ]),
        .executableTarget(name: "ratios", dependencies: ["Scenarios"]),
        // The peer table's paths one at a time, for callgrind: a synchronous main, as valgrind 3.19
        // crashes once an async main has parked the main thread in `dispatch_main`.
        .executableTarget(name: "profile", dependencies: ["Scenarios"]),
        .executableTarget(
            name: "HTTPClientBenchmarks",
            dependencies: ["Scenarios", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/HTTPClientBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
    ],
    swiftLanguageModes: [.v6]
)
