// swift-tools-version:6.0
import PackageDescription

// Coverage-guided fuzzing of everything that parses or redacts what a server or a file sends,
// with libFuzzer. Kept out of the root package so its users never build it. Run `./run`:
// it builds with `-sanitize=fuzzer,address` and runs each target for a bounded time.
let package = Package(
    name: "Fuzz",
    dependencies: [.package(name: "HTTPClient", path: "..")],
    targets: [
        .executableTarget(
            name: "fuzz",
            dependencies: [
                .product(name: "HTTPClient", package: "HTTPClient"),
                .product(name: "HTTPClientStubs", package: "HTTPClient"),
            ])
    ],
    swiftLanguageModes: [.v6]
)
