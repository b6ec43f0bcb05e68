// swift-tools-version:6.0
import PackageDescription

// No package dependencies, by design: users who add this package fetch nothing else.
// Integration tests and benchmarks live in their own packages (IntegrationTests/, Benchmarks/).
let package = Package(
    name: "HTTPClient",
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "HTTPClient", targets: ["HTTPClient"]),
        .library(name: "HTTPClientMocks", targets: ["HTTPClientMocks"]),
        .executable(name: "httpc", targets: ["httpc"]),
    ],
    targets: [
        .target(name: "HTTPClient"),
        .target(name: "HTTPClientMocks", dependencies: ["HTTPClient"]),
        .executableTarget(name: "httpc", dependencies: ["HTTPClient", "HTTPClientMocks"]),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "HTTPClientMocks"]),
        .testTarget(
            name: "HTTPClientMocksTests",
            // httpc is a dependency so that `swift test` builds the binary its tests launch.
            dependencies: ["HTTPClient", "HTTPClientMocks", "httpc"],
            resources: [.copy("Fixtures"), .copy("Cassettes")]),
    ],
    swiftLanguageModes: [.v6]
)
