import Foundation
import HTTPClient

/// Chooses the session an app uses from its environment, so UI tests, end-to-end tests and
/// demos can launch the app with canned answers and no other change to its code:
///
/// ```swift
/// // In the app:
/// let client = HTTPClient(session: try StubEnvironment.session())
/// // In the UI test: app.launchEnvironment["HTTPCLIENT_FIXTURES"] = fixturesPath
/// ```
///
/// - `HTTPCLIENT_FIXTURES=/path/to/folder`: answers from a VOKMockData fixture folder.
/// - `HTTPCLIENT_CASSETTE=/path/to/cassette.json`: replays a cassette (or records, with
///   `HTTPCLIENT_RECORD_MODE`).
/// - neither: the real session.
///
/// Unmatched requests fail with the report as their error (there is no test to fail).
public enum StubEnvironment {
    /// The environment variable that names a fixture folder to serve.
    package static let fixturesVariable = "HTTPCLIENT_FIXTURES"
    /// The environment variable that names a cassette to replay.
    package static let cassetteVariable = "HTTPCLIENT_CASSETTE"

    /// The session the environment asks for, or `fallback` when it asks for none.
    ///
    /// - Throws: ``FixtureError`` or ``CassetteError`` when a variable names
    ///   something unusable: better a clear launch failure than silently real traffic.
    public static func session(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        fallback: @autoclosure () -> any URLSessionProtocol = URLSession.shared
    ) throws -> any URLSessionProtocol {
        if let path = environment[fixturesVariable], !path.isEmpty {
            let stubs = StubRegistry("fixtures \(path)", reporting: .disabled)
            stubs.serve(try FixtureFolder(directory: URL(fileURLWithPath: path)))
            return MockURLSession(stubs: stubs)
        }
        if let path = environment[cassetteVariable], !path.isEmpty {
            return try CassetteSession(
                file: URL(fileURLWithPath: path), mode: RecordMode.fromEnvironment(environment),
                upstream: fallback(), reporting: .disabled)
        }
        return fallback()
    }
}
