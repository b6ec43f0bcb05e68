#if canImport(XCTest)
import Foundation
import HTTPClient
import HTTPClientStubs
import XCTest

extension XCTestCase {
    /// A cassette of this test's own, the XCTest face of the `.cassette()` trait:
    /// `Cassettes/<Class>.<method>.json` beside the test file, replayed when it exists and
    /// recorded when the mode allows (`HTTPCLIENT_RECORD_MODE`, `none` unless set). While it does
    /// not exist, `Replays/<name>.har` beside the file, an archive of mattt/Replay, is replayed as
    /// it is.
    ///
    /// ```swift
    /// func testLoadsTheProfile() async throws {
    ///     let model = ProfileModel(session: try cassette())  // Cassettes/ProfileTests.testLoadsTheProfile.json
    ///     try await model.load()
    ///     XCTAssertEqual(model.name, "Ada")
    /// }
    /// ```
    ///
    /// Failures are XCTest failures, and the registry (``CassetteSession/stubs``) is verified
    /// when the test ends (every stub of your own used). Call it once per test: each call opens
    /// the cassette again. Two tests that would record into one file in the same run (two given
    /// the same name) fail with ``TestCassetteError/recordedByAnotherTest(file:test:otherTest:)``.
    ///
    /// - Parameters:
    ///   - name: The cassette's name; by default `Class.method`.
    ///   - matching: What a recorded exchange must match besides method and URL.
    ///   - redaction: What is hidden before anything is written; `.standard` by default.
    ///   - upstream: The real session requests go to when recording.
    ///   - folder: The folder that holds `Cassettes/` (and `Replays/`); by default the test file's.
    ///   - fileID: Where this is called (with `filePath`, `line` and `column`): the cassette is
    ///     beside this file, and failures the registry reports point here. Leave the defaults.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    /// - Throws: ``CassetteError`` when the cassette cannot be opened (none to replay in mode
    ///   `none`) or `HTTPCLIENT_RECORD_MODE` names no mode, ``TestCassetteError`` when another
    ///   test records into it.
    public func cassette(
        _ name: String? = nil, matching: CassetteMatching = CassetteMatching(), redaction: Redaction = .standard,
        upstream: any URLSessionProtocol = URLSession.shared, folder: URL? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) throws -> CassetteSession {
        try cassette(
            name, mode: RecordMode.fromEnvironment(), matching: matching, redaction: redaction, upstream: upstream, folder: folder,
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// A cassette of this test's own that records in `mode` whatever the environment says, as
    /// ``cassette(_:matching:redaction:upstream:folder:fileID:filePath:line:column:)`` otherwise.
    ///
    /// - Parameters:
    ///   - name: The cassette's name; by default `Class.method`.
    ///   - mode: When to record.
    ///   - matching: What a recorded exchange must match besides method and URL.
    ///   - redaction: What is hidden before anything is written; `.standard` by default.
    ///   - upstream: The real session requests go to when recording.
    ///   - folder: The folder that holds `Cassettes/` (and `Replays/`); by default the test file's.
    ///   - fileID: Where this is called (with `filePath`, `line` and `column`). Leave the defaults.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    /// - Throws: ``CassetteError`` when the cassette cannot be opened (none to replay in mode
    ///   `none`), ``TestCassetteError`` when another test records into it.
    public func cassette(
        _ name: String? = nil, mode: RecordMode, matching: CassetteMatching = CassetteMatching(), redaction: Redaction = .standard,
        upstream: any URLSessionProtocol = URLSession.shared, folder: URL? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) throws -> CassetteSession {
        let (className, method) = Self.classAndMethod(of: self.name)
        let testName = "\(className).\(method)"
        let registry = StubRegistry(testName, fileID: fileID, filePath: filePath, line: line, column: column)
        let location = TestCassette(
            folder: folder ?? URL(fileURLWithPath: "\(filePath)").deletingLastPathComponent(), name: name ?? testName,
            replayName: name ?? TestCassette.replayName(of: method))
        let owner = ObjectIdentifier(self)
        let session = try location.openForTest(
            testName, owner: owner, mode: mode, upstream: upstream, matching: matching, redaction: redaction, stubs: registry)
        addTeardownBlock {
            CassetteClaims.shared.release(by: owner)
            registry.verifyAllStubsUsed()
        }
        return session
    }

    /// `-[ProfileTests testLoad]` (Apple's XCTest) and `ProfileTests.testLoad` (corelibs') as
    /// `("ProfileTests", "testLoad")`.
    static func classAndMethod(of testName: String) -> (className: String, method: String) {
        var name = Substring(testName)
        if name.hasPrefix("-["), name.hasSuffix("]") {
            name = name.dropFirst(2).dropLast()
            let parts = name.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { return (String(parts[0]), String(parts[1])) }
        }
        guard let dot = name.lastIndex(of: ".") else { return ("", String(name)) }
        return (String(name[..<dot]), String(name[name.index(after: dot)...]))
    }
}
#endif
