// swift-tools-version:6.0
import PackageDescription

// Real-server tests for HTTPClient, kept out of the root package so its users never fetch
// SwiftNIO. `LoopbackServer` is a library so the Benchmarks package can reuse the same server.
let package = Package(
    name: "IntegrationTests",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "LoopbackServer", targets: ["LoopbackServer"])
    ],
    dependencies: [
        // Named, so `.product(package: "HTTPClient")` works whatever the checkout's folder is called.
        .package(name: "HTTPClient", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        // A client generated for the OpenAPI ecosystem, run over a stubbed URLSession.
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // The other library whose main type is called HTTPClient: one file uses both.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        .target(
            name: "LoopbackServer",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "LoopbackServer",
                .product(name: "HTTPClientStubs", package: "HTTPClient"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPClient", package: "HTTPClient"),
                .product(name: "HTTPClientMocks", package: "HTTPClient"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            // The OpenAPI document the generated client in ProfilesAPI/Generated comes from.
            exclude: ["ProfilesAPI/openapi.yaml", "ProfilesAPI/openapi-generator-config.yaml", "ProfilesAPI/README.md"]),
    ],
    swiftLanguageModes: [.v6]
)
