// swift-tools-version:6.0
import PackageDescription

// No package dependencies, by design: users who add this package fetch nothing else.
// Integration tests and benchmarks live in their own packages (IntegrationTests/, Benchmarks/).
let package = Package(
    name: "HTTPClient",
    // The floor where everything stored in a Sendable type is Sendable in Apple's SDKs (JSONEncoder and
    // JSONDecoder from macOS 13 / iOS 16); README's Platforms section lists what was checked.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "HTTPClient", targets: ["HTTPClient"]),
        // What test targets add: the stub engine, with failures reported to XCTest and Swift Testing.
        .library(name: "HTTPClientMocks", targets: ["HTTPClientMocks"]),
        // What app targets add to serve stubs outside tests (UI tests, demos): the same engine,
        // linking no test framework.
        .library(name: "HTTPClientStubs", targets: ["HTTPClientStubs"]),
        .executable(name: "httpc", targets: ["httpc"]),
    ],
    targets: [
        .target(name: "HTTPClient"),
        // epoll(7) and eventfd(2), which the Glibc module leaves out: the system's headers, nothing compiled.
        .systemLibrary(name: "CEventPoll", path: "Sources/CEventPoll"),
        .target(name: "HTTPClientStubs", dependencies: ["HTTPClient", .target(name: "CEventPoll", condition: .when(platforms: [.linux]))]),
        // The only module that imports XCTest and Testing (see TestFrameworkBridge.swift).
        .target(name: "HTTPClientMocks", dependencies: ["HTTPClient", "HTTPClientStubs"]),
        .executableTarget(name: "httpc", dependencies: ["HTTPClient", "HTTPClientStubs"]),
        // An app that serves stubs the way README shows; CI checks it links no test framework.
        .executableTarget(
            name: "StubbedApp", dependencies: ["HTTPClient", "HTTPClientStubs"], path: "Examples/StubbedApp"),
        // An app a UI-test-style test launches against a StubServer (AppUnderTestTests): it links the client only.
        .executableTarget(name: "AppUnderTest", dependencies: ["HTTPClient"], path: "Examples/AppUnderTest"),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "HTTPClientMocks"]),
        .testTarget(
            name: "HTTPClientMocksTests",
            // httpc and AppUnderTest are dependencies so that `swift test` builds the binaries its tests launch.
            dependencies: ["HTTPClient", "HTTPClientMocks", "httpc", "AppUnderTest"],
            // The examples' cassettes and Replay archives are read beside their test files, not from the bundle.
            exclude: ["Readme/Cassettes", "Readme/Replays"],
            resources: [.copy("Fixtures"), .copy("Cassettes")]),
    ],
    swiftLanguageModes: [.v6]
)
