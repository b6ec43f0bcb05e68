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
    ],
    targets: [
        .target(name: "HTTPClient"),
        .target(name: "HTTPClientMocks", dependencies: ["HTTPClient"]),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "HTTPClientMocks"]),
        .testTarget(name: "HTTPClientMocksTests", dependencies: ["HTTPClient", "HTTPClientMocks"]),
    ],
    swiftLanguageModes: [.v6]
)
