import Foundation
import Testing

/// Every ```swift block of README.md (except the Package.swift snippet, which is not test code)
/// must appear, line for line and in order, in ReadmeExamplesTests.swift, which the test build
/// compiles. `import` lines are compared separately: the examples file imports once at the top.
@Suite("README")
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

    @Test func everySwiftExampleIsCompiledInATest() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let examples = try String(
            contentsOf: Self.root.appendingPathComponent("Tests/HTTPClientMocksTests/Readme/ReadmeExamplesTests.swift"),
            encoding: .utf8)
        let compiled = Self.meaningfulLines(examples).joined(separator: "\n")
        let blocks = Self.swiftBlocks(in: readme).filter { !$0.contains("Package.swift") }
        #expect(blocks.count >= 3)
        for block in blocks {
            let lines = Self.meaningfulLines(block).joined(separator: "\n")
            #expect(compiled.contains(lines), "README example not found in ReadmeExamplesTests.swift:\n\(block)")
        }
    }
}
