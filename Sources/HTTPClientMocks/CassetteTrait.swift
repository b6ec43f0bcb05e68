#if canImport(Testing) && compiler(>=6.1)
import Foundation
import HTTPClient
import HTTPClientStubs
import Testing

/// A Swift Testing trait that gives each test a cassette of its own, in a `Cassettes` folder
/// beside the test's source file, named after the test:
///
/// ```swift
/// @Test(.cassette()) func loadsTheProfile() async throws {
///     let model = ProfileModel(session: try CassetteSession.current)  // Cassettes/loadsTheProfile.json
///     try await model.load()
///     #expect(model.name == "Ada")
/// }
/// ```
///
/// The cassette is replayed when it exists and recorded when the mode allows: the mode comes
/// from `HTTPCLIENT_RECORD_MODE` (`none` when it is not set), so the first recording is
/// `HTTPCLIENT_RECORD_MODE=once swift test --filter loadsTheProfile`, and CI replays. A test in
/// a suite type is named with it (`ProfileTests.loadsTheProfile.json`); the name given replaces
/// both (`.cassette("profile")` is `Cassettes/profile.json`). While the cassette does not exist,
/// the archive mattt/Replay records for the same test, `Replays/<name>.har` beside the file, is
/// replayed as it is.
///
/// A parameterised test runs its cases in parallel, and they must not share a file: each case
/// asks for its own with ``CassetteSession/current(case:_:)``, which names it after the
/// arguments (`Cassettes/loadsTheUser(id_)/2.json`); ``CassetteSession/current`` refuses to
/// choose for it. Two tests that would record into one file in the same run (two given the same
/// name) fail with ``TestCassetteError/recordedByAnotherTest(file:test:otherTest:)``; tests that
/// only replay may share one.
///
/// As with the `.stubs` trait, the cassette's registry (``CassetteSession/stubs``) is
/// ``StubRegistry/current`` for the test's task and every task it creates, every failure is
/// charged to the test, and the registry is verified when the test ends (every stub of your own
/// used; the cassette's recordings may go unused). Waits on its stubs and held responses work as
/// anywhere.
public struct CassetteTrait: TestTrait, TestScoping {
    /// The cassette's name, or `nil` for the test's.
    package let name: String?
    /// The mode, or `nil` for the environment's.
    package let mode: RecordMode?
    package let matching: CassetteMatching
    package let redaction: Redaction
    package let upstream: any URLSessionProtocol
    /// The folder `Cassettes/` and `Replays/` are in: the test file's unless given.
    package let folder: URL?
    /// The source file of the test, where the trait was written.
    package let sourceFile: String
    /// Where the mode is read when none is given: the process's environment unless a test of
    /// the trait sets another.
    package var environment: [String: String] = ProcessInfo.processInfo.environment

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let mode = try self.mode ?? RecordMode.fromEnvironment(environment)
        let testName = (test.id.nameComponents.isEmpty ? [test.name] : test.id.nameComponents).joined(separator: ".")
        let failures = TestScopedFailures(test: test)
        let registry = StubRegistry(test.name, reporting: failures.reporting)
        let location = { @Sendable (caseName: String?) in
            TestCassette(
                folder: folder ?? URL(fileURLWithPath: sourceFile).deletingLastPathComponent(), name: name ?? testName, caseName: caseName,
                replayName: name ?? TestCassette.replayName(of: test.displayName ?? test.name))
        }
        let scope = TestCassetteScope(testName: testName, isParameterized: testCase?.isParameterized ?? false) { caseName, owner in
            try location(caseName).openForTest(
                testName + (caseName.map { " case \($0)" } ?? ""), owner: owner, mode: mode, upstream: upstream, matching: matching,
                redaction: redaction, stubs: registry)
        }
        let outcome: Result<Void, any Error>
        do {
            // A test that runs once opens its cassette now: a missing one fails it before it starts.
            if !scope.isParameterized { _ = try scope.session(case: nil) }
            try await StubRegistry.$current.withValue(registry) {
                try await TestCassetteScope.$current.withValue(scope) { try await function() }
            }
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        CassetteClaims.shared.release(by: ObjectIdentifier(scope))
        registry.verifyAllStubsUsed()
        failures.recordPendingAndEnd()
        try outcome.get()
    }
}

extension Trait where Self == CassetteTrait {
    /// A cassette of the test's own, `Cassettes/<name>.json` beside the test file, replayed when
    /// it exists and recorded when `HTTPCLIENT_RECORD_MODE` allows (`none` unless set).
    ///
    /// - Parameters:
    ///   - name: The cassette's name; by default the test's (`Suite.function`, without `()`).
    ///   - matching: What a recorded exchange must match besides method and URL.
    ///   - redaction: What is hidden before anything is written; `.standard` by default.
    ///   - upstream: The real session requests go to when recording.
    ///   - folder: The folder that holds `Cassettes/` (and Replay's `Replays/`); by default the
    ///     test file's.
    ///   - filePath: The test's source file. Leave the default.
    public static func cassette(
        _ name: String? = nil, matching: CassetteMatching = CassetteMatching(), redaction: Redaction = .standard,
        upstream: any URLSessionProtocol = URLSession.shared, folder: URL? = nil, filePath: StaticString = #filePath
    ) -> CassetteTrait {
        CassetteTrait(
            name: name, mode: nil, matching: matching, redaction: redaction, upstream: upstream, folder: folder,
            sourceFile: "\(filePath)")
    }

    /// A cassette of the test's own that records in `mode` whatever the environment says, as
    /// ``cassette(_:matching:redaction:upstream:folder:filePath:)`` otherwise.
    ///
    /// - Parameters:
    ///   - name: The cassette's name; by default the test's (`Suite.function`, without `()`).
    ///   - mode: When to record.
    ///   - matching: What a recorded exchange must match besides method and URL.
    ///   - redaction: What is hidden before anything is written; `.standard` by default.
    ///   - upstream: The real session requests go to when recording.
    ///   - folder: The folder that holds `Cassettes/` (and Replay's `Replays/`); by default the
    ///     test file's.
    ///   - filePath: The test's source file. Leave the default.
    public static func cassette(
        _ name: String? = nil, mode: RecordMode, matching: CassetteMatching = CassetteMatching(), redaction: Redaction = .standard,
        upstream: any URLSessionProtocol = URLSession.shared, folder: URL? = nil, filePath: StaticString = #filePath
    ) -> CassetteTrait {
        CassetteTrait(
            name: name, mode: mode, matching: matching, redaction: redaction, upstream: upstream, folder: folder,
            sourceFile: "\(filePath)")
    }
}

extension CassetteSession {
    /// The cassette of the running test, which the `.cassette()` trait gave it (in XCTest,
    /// `cassette()` returns it instead).
    ///
    /// - Throws: ``TestCassetteError`` outside a test with the trait, or in a parameterised test,
    ///   whose cases each name theirs with ``current(case:_:)``.
    public static var current: CassetteSession {
        get throws {
            guard let scope = TestCassetteScope.current else { throw TestCassetteError.noCassetteTrait }
            guard !scope.isParameterized else { throw TestCassetteError.caseNotNamed(test: scope.testName) }
            return try scope.session(case: nil)
        }
    }

    /// The cassette of this case of a parameterised test with the `.cassette()` trait, named
    /// after its arguments: `Cassettes/<test>/<arguments>.json`, each as `String(describing:)`
    /// writes it, joined by `, ` (a name unsafe for a file, or longer than 80 characters, is made
    /// safe and ends with a hash of the whole, so two cases never share a file).
    ///
    /// ```swift
    /// @Test(.cassette(), arguments: [1, 2])
    /// func loadsTheUser(id: Int) async throws {
    ///     let service = UserService(session: try CassetteSession.current(case: id))  // Cassettes/loadsTheUser(id_)/1.json
    ///     #expect(try await service.user(id: id).id == id)
    /// }
    /// ```
    ///
    /// - Throws: ``TestCassetteError`` outside a test with the trait, or when this test case
    ///   already opened another case's; ``CassetteError`` when the cassette cannot be opened
    ///   (none to replay in mode `none`).
    public static func current(case argument: Any, _ more: Any...) throws -> CassetteSession {
        guard let scope = TestCassetteScope.current else { throw TestCassetteError.noCassetteTrait }
        return try scope.session(case: ([argument] + more).map { String(describing: $0) }.joined(separator: ", "))
    }
}

/// What the `.cassette()` trait keeps for one test (one case of a parameterised one): how to open
/// its cassette, and the one it opened.
final class TestCassetteScope: Sendable {
    @TaskLocal static var current: TestCassetteScope?

    /// `Suite.function()`, for messages.
    let testName: String
    let isParameterized: Bool
    /// Opens the cassette of a case (`nil` for a test that runs once), claimed for the owner given.
    private let open: @Sendable (_ caseName: String?, _ owner: ObjectIdentifier) throws -> CassetteSession
    private let opened = Locked<(caseName: String?, session: CassetteSession)?>(nil)

    init(
        testName: String, isParameterized: Bool,
        open: @escaping @Sendable (_ caseName: String?, _ owner: ObjectIdentifier) throws -> CassetteSession
    ) {
        self.testName = testName
        self.isParameterized = isParameterized
        self.open = open
    }

    /// The cassette of `caseName` (`nil` for a test that runs once), opened on first use.
    func session(case caseName: String?) throws -> CassetteSession {
        try opened.withLock { opened in
            if let opened {
                guard opened.caseName == caseName else {
                    throw TestCassetteError.secondCase(test: testName, opened: opened.caseName ?? "", requested: caseName ?? "")
                }
                return opened.session
            }
            let session = try open(caseName, ObjectIdentifier(self))
            opened = (caseName, session)
            return session
        }
    }
}
#endif
