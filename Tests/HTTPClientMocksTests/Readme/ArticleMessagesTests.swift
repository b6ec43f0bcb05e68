import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// Every message README.md and the DocC articles quote (each ```text block) is printed here by
/// the code that prints it, so a reader never sees text the code no longer prints. A quoted
/// message follows the line `<!-- produced by ArticleMessagesTests: KEY -->` and must equal what
/// ``produce(_:)`` makes for `KEY`; the one kind of block that is not a message, an example of a
/// file's format, follows `<!-- an example file, not a message -->`.
@Suite("Messages quoted in the documentation")
struct ArticleMessagesTests {
    static let markerPrefix = "<!-- produced by ArticleMessagesTests: "
    static let notAMessage = "<!-- an example file, not a message -->"
    static let keys = ["unmatched-report", "client-errors", "httpc-synopsis", "httpc-fixture-miss", "fixture-malformed"]

    /// Each ```text block of `text`, with the line just before its opening fence.
    static func textBlocks(in text: String) -> [(before: String, block: String)] {
        let parts = text.components(separatedBy: "```text\n")
        return zip(parts, parts.dropFirst()).map { before, after in
            let lineBefore = before.split(separator: "\n", omittingEmptySubsequences: false).dropLast().last.map(String.init) ?? ""
            return (lineBefore, after.components(separatedBy: "\n```").first ?? "")
        }
    }

    /// Every quoted block of every document, with where it is and its key (`nil` without a marker).
    static func quotedBlocks() throws -> [(document: String, key: String?, block: String)] {
        try ReadmeIsCompiledTests.documents.flatMap { document in
            try textBlocks(in: String(contentsOf: document, encoding: .utf8)).compactMap { before, block in
                guard before != notAMessage else { return nil }
                let key =
                    before.hasPrefix(markerPrefix) && before.hasSuffix(" -->")
                    ? String(before.dropFirst(markerPrefix.count).dropLast(" -->".count)) : nil
                return (document.lastPathComponent, key, block)
            }
        }
    }

    @Test func everyQuotedBlockIsAMessageATestProducesOrAnExampleFile() throws {
        let blocks = try Self.quotedBlocks()
        for (document, key, block) in blocks {
            #expect(key.map(Self.keys.contains) == true, "a ```text block of \(document) has no known marker: \(block.prefix(80))")
        }
        #expect(Set(blocks.compactMap(\.key)) == Set(Self.keys), "a message is produced here but quoted nowhere")
    }

    @Test("the quoted message is what the code prints", arguments: keys)
    func theQuotedMessageIsWhatTheCodePrints(key: String) async throws {
        let quoted = try Self.quotedBlocks().filter { $0.key == key }
        #expect(!quoted.isEmpty)
        let produced = try await Self.produce(key)
        for (document, _, block) in quoted {
            #expect(block == produced, "\(document) quotes a message the code does not print")
        }
    }

    /// The message `key` names, printed by the code that prints it.
    static func produce(_ key: String) async throws -> String {
        switch key {
        case "unmatched-report": try ReadmeReportTests.makeReport()
        case "client-errors": try await clientErrors()
        case "httpc-synopsis": try await httpcSynopsis()
        case "httpc-fixture-miss": try await httpcFixtureMiss()
        case "fixture-malformed": try malformedFixture()
        default: throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "no message is named \(key)"])
        }
    }

    /// MakingRequests.md: a failed status, a body that does not decode, a transport error.
    static func clientErrors() async throws -> String {
        struct User: Decodable, Sendable {
            let id: Int
            let name: String
        }
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "https://api.example.com/users/9").respond(.text("no such user", status: 404))
        stubs.stub(.get, "https://api.example.com/users/1").respond(.json(raw: #"{"id": 1}"#))
        stubs.stub(.get, "https://api.example.com/slow").respond(.error(URLError(.timedOut)))
        let client = HTTPClient(session: MockURLSession(stubs: stubs))
        var lines: [String] = []
        do {
            _ = try await client.get("https://api.example.com/users/9")
        } catch {
            lines.append(error.description)
        }
        do {
            _ = try await client.get("https://api.example.com/users/1").decode(User.self)
        } catch {
            lines.append(error.description)
        }
        do {
            _ = try await client.get("https://api.example.com/slow")
        } catch {
            lines.append(error.description)
        }
        do {
            _ = try await client.get("https://api.example.com/users", headers: ["X-User-Name": "Ann\r\nX-Admin: yes"])
        } catch {
            lines.append(error.description)
        }
        return lines.joined(separator: "\n")
    }

    /// README.md: the first lines of `httpc --help`, without the word `usage:`.
    static func httpcSynopsis() async throws -> String {
        let help = try await HttpcTests().httpc("--help").output
        let synopsis = help.components(separatedBy: "\n\n").first ?? ""
        // The continuation lines are indented under the first word after `usage: `.
        return synopsis.split(separator: "\n").map { String($0.dropFirst("usage: ".count)) }.joined(separator: "\n")
    }

    /// FixtureFolders.md: httpc's miss in a fixture folder, run from the package's root as shown.
    static func httpcFixtureMiss() async throws -> String {
        let arguments = ["GET", "https://api.example.com/users/7", "--fixtures", "Examples/Fixtures"]
        let run = try await HttpcTests().run(arguments)
        // The folder as the reader's machine spells it (a link such as /tmp may be resolved).
        let errors = run.errors.replacingOccurrences(
            of: #"(?m) /[^ \n]*/Examples/Fixtures "#, with: " /path/to/Examples/Fixtures ", options: .regularExpression)
        return "$ swift run httpc " + arguments.joined(separator: " ") + "\n" + errors.trimmingCharacters(in: .newlines)
    }

    /// FixtureFolders.md: a `.http` file whose third line is not a header line.
    static func malformedFixture() throws -> String {
        let folder = try TemporaryFolder()
        let fixtures = folder.url.appendingPathComponent("Examples/Fixtures", isDirectory: true)
        try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: true)
        let file = fixtures.appendingPathComponent("GET|-users-1.http")
        try Data("HTTP/1.1 200 OK\nCache-Control: no-cache\nContent-Type application/json\n\n{}".utf8).write(to: file)
        do {
            _ = try FixtureFolder.response(from: file)
            return "the malformed file was read"
        } catch {
            // From the folder on, as the article names it (a link such as /tmp may be resolved).
            let message = error.description
            return message.range(of: "Examples/Fixtures/").map { String(message[$0.lowerBound...]) } ?? message
        }
    }
}
