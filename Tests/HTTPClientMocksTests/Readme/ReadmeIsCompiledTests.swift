import Foundation
import Testing

/// Every ```swift block of README.md and of the DocC articles (except the Package.swift snippet,
/// which is not test code, and blocks that start with `// Before:`, which show another library's
/// API) must appear, line for line and in order, in one of this folder's `*ExamplesTests.swift`
/// files, which the test build compiles. `import` lines are compared separately: the examples file imports once at the top.
@Suite("README and the documentation articles")
struct ReadmeIsCompiledTests {
    /// The repository: this file is Tests/HTTPClientMocksTests/Readme/ReadmeIsCompiledTests.swift.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func meaningfulLines(_ text: some StringProtocol) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("import ") && !$0.hasPrefix("//") }
    }

    static func swiftBlocks(in readme: String) -> [String] {
        readme.components(separatedBy: "```swift\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
    }

    /// README.md and every DocC article: what a reader is shown must compile.
    static var documents: [URL] {
        let catalogs = ["Sources/HTTPClient/HTTPClient.docc", "Sources/HTTPClientMocks/HTTPClientMocks.docc"]
        let articles = catalogs.flatMap { catalog in
            ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(catalog).path)) ?? [])
                .filter { $0.hasSuffix(".md") }.sorted().map { root.appendingPathComponent(catalog).appendingPathComponent($0) }
        }
        return [root.appendingPathComponent("README.md")] + articles
    }

    @Test func everySwiftExampleIsCompiledInATest() throws {
        // Every *ExamplesTests.swift file of these folders holds compiled examples (the one that
        // imports AsyncHTTPClient lives in the integration tests, which may depend on it).
        let folders = ["Tests/HTTPClientMocksTests/Readme", "IntegrationTests/Tests/IntegrationTests"].map(Self.root.appendingPathComponent)
        let sources = try folders.flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix("ExamplesTests.swift") }.sorted()
                .map { folder.appendingPathComponent($0) }
        }
        let files = sources.map(\.lastPathComponent)
        let examples = try sources.map { try String(contentsOf: $0, encoding: .utf8) }
        let compiled = examples.map { Self.meaningfulLines($0).joined(separator: "\n") }
        var checked = 0
        for document in Self.documents {
            let text = try String(contentsOf: document, encoding: .utf8)
            // Not test code: a Package.swift snippet, and another library's API shown for comparison.
            for block in Self.swiftBlocks(in: text) where !block.contains("Package.swift") && !block.hasPrefix("// Before:") {
                let lines = Self.meaningfulLines(block).joined(separator: "\n")
                #expect(
                    compiled.contains { $0.contains(lines) },
                    "\(document.lastPathComponent): example not found in \(files.joined(separator: ", ")):\n\(block)")
                checked += 1
            }
        }
        // README and the articles hold dozens of examples: finding few means the search broke.
        #expect(Self.documents.count >= 9 && checked >= 15, "\(Self.documents.count) documents, \(checked) examples")
    }
}
