import Foundation
import HTTPClient

/// Where a test's own cassette lives, beside its source file: `Cassettes/<name>.json`, or
/// `Cassettes/<name>/<case>.json` for one case of a parameterised test. While that file does not
/// exist, the archive mattt/Replay keeps for the same test, `Replays/<name>.har`, is played as it
/// is.
///
/// The folder is found from the test's `#filePath`, so recording writes into the source tree
/// (where the cassette is committed), not into the build folder.
package struct TestCassette: Sendable, Equatable {
    /// The cassette file.
    package let file: URL
    /// Replay's archive for the same test, played while `file` does not exist.
    package let replayArchive: URL

    /// - Parameters:
    ///   - folder: The folder of the test's source file (or another that holds the cassettes).
    ///   - name: The test's name, or the name given (a `.json` or `.har` ending is dropped).
    ///   - caseName: For one case of a parameterised test, what tells it apart.
    ///   - replayName: The name Replay gives the same test's archive (for a given name, that
    ///     name).
    package init(folder: URL, name: String, caseName: String? = nil, replayName: String) {
        let base = Self.fileName(Self.droppingExtension(name))
        let cassettes = folder.appendingPathComponent("Cassettes")
        file =
            caseName.map { cassettes.appendingPathComponent(base).appendingPathComponent(Self.caseFileName($0) + ".json") }
            ?? cassettes.appendingPathComponent(base + ".json")
        replayArchive = folder.appendingPathComponent("Replays").appendingPathComponent(
            Self.fileName(Self.droppingExtension(replayName)) + ".har")
    }

    /// Opens the cassette, or Replay's archive while the cassette does not exist, into `stubs`.
    ///
    /// - Throws: ``CassetteError`` naming the file: none to replay in mode `none`, or one that
    ///   cannot be read.
    package func open(
        mode: RecordMode, upstream: any URLSessionProtocol, matching: CassetteMatching, redaction: Redaction, stubs: StubRegistry,
        at site: CallSite
    ) throws -> CassetteSession {
        let files = FileManager.default
        // Recording everything again replaces the archive with a cassette of this library's own.
        let seed =
            mode != .all && !files.fileExists(atPath: file.path) && files.fileExists(atPath: replayArchive.path)
            ? try Cassette(harContentsOf: replayArchive) : nil
        return try CassetteSession(
            file: file, mode: mode, upstream: upstream, matching: matching, redaction: redaction, replaysTiming: false, stubs: stubs,
            seed: seed, fileID: site.fileIDString, filePath: site.filePathString, line: UInt(site.line), column: UInt(site.column))
    }

    /// The name Replay gives a test's archive: its display name, or its function's, with spaces
    /// and slashes as `_` and parentheses dropped (`fetchUser()` is `fetchUser`).
    package static func replayName(of testName: String) -> String {
        testName.replacingOccurrences(of: " ", with: "_").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "(", with: "").replacingOccurrences(of: ")", with: "")
    }

    /// `text` as one path component that every file system takes: the characters Windows or
    /// macOS refuse in a name (`/ \ : * ? " < > |`, control characters) are `_`, a leading dot
    /// is `_` (no hidden files), and a trailing `()` (a function without arguments) is dropped.
    package static func fileName(_ text: String) -> String {
        let trimmed = text.hasSuffix("()") ? String(text.dropLast(2)) : text
        var name = String(
            String.UnicodeScalarView(
                trimmed.unicodeScalars.map { scalar in
                    scalar.properties.generalCategory == .control || #"/\:*?"<>|"#.unicodeScalars.contains(scalar) ? "_" : scalar
                }))
        if name.hasPrefix(".") || name.isEmpty { name = "_" + name.dropFirst() }
        return name
    }

    /// A case's name as a file name: as it is when it is a safe name of at most 80 characters;
    /// otherwise made safe and short, with a hash of the whole so that two cases never share a
    /// file (`a/b` and `a_b`, two long arguments alike at the start).
    static func caseFileName(_ caseName: String) -> String {
        let safe = fileName(caseName)
        guard safe != caseName || safe.count > 80 else { return safe }
        return String(safe.prefix(60)) + "-" + SHA256.hex(caseName).prefix(8)
    }

    private static func droppingExtension(_ name: String) -> String {
        for ending in [".json", ".har"] where name.hasSuffix(ending) && name.count > ending.count {
            return String(name.dropLast(ending.count))
        }
        return name
    }
}
