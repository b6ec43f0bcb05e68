import Foundation
import HTTPClient
import HTTPClientStubs

/// The cassette files tests are recording into in this process, and which test records each: two
/// tests writing one file would each overwrite what the other recorded. A claim lasts as long as
/// its test, so the same test run again (a repetition) records into the file again.
final class CassetteClaims: Sendable {
    static let shared = CassetteClaims()

    private let owners = Locked<[String: (owner: ObjectIdentifier, test: String)]>([:])

    /// Claims `file` for `owner` (one running test; `test` names it in messages), or throws
    /// naming the test that has it.
    func claim(_ file: URL, by owner: ObjectIdentifier, for test: String) throws(TestCassetteError) {
        let path = file.standardizedFileURL.path
        let holder = owners.withLock { owners in
            if let holder = owners[path] { return holder }
            owners[path] = (owner, test)
            return (owner, test)
        }
        guard holder.owner == owner else { throw .recordedByAnotherTest(file: path, test: test, otherTest: holder.test) }
    }

    /// Gives up the files `owner` claimed: its test has ended.
    func release(by owner: ObjectIdentifier) {
        owners.withLock { owners in owners = owners.filter { $0.value.owner != owner } }
    }
}

extension TestCassette {
    /// Opens the cassette of `test` (its name for messages, with the case's) into `stubs`, and
    /// claims its file for `owner` when the mode records into it.
    func openForTest(
        _ test: String, owner: ObjectIdentifier, mode: RecordMode, upstream: any URLSessionProtocol, matching: CassetteMatching,
        redaction: Redaction, stubs: StubRegistry
    ) throws -> CassetteSession {
        let session = try open(mode: mode, upstream: upstream, matching: matching, redaction: redaction, stubs: stubs, at: stubs.location)
        if session.records { try CassetteClaims.shared.claim(file, by: owner, for: test) }
        return session
    }
}
