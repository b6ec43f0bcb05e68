import Foundation
import HTTPClient

/// When a cassette session records.
public enum RecordMode: String, Sendable, CaseIterable {
    /// Replay only; a request not in the cassette fails. The default, and what CI should use.
    case none
    /// Record everything when the cassette does not exist yet; otherwise replay only.
    case once
    /// Replay what the cassette has; record (and append) what it does not.
    case newEpisodes = "new_episodes"
    /// Record everything again, replacing the cassette.
    case all

    /// The environment variable that overrides the mode, so a developer can re-record without
    /// editing tests: `HTTPCLIENT_RECORD_MODE=all swift test`.
    package static let environmentVariable = "HTTPCLIENT_RECORD_MODE"

    /// The mode named by ``environmentVariable`` (`none`, `once`, `new_episodes`, `all`), or
    /// `fallback` when it is not set.
    ///
    /// - Throws: ``CassetteError/unknownRecordMode(_:)`` when the variable has another value (a typo should not
    ///   silently replay or record).
    package static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment, default fallback: RecordMode = .none
    ) throws(CassetteError) -> RecordMode {
        guard let value = environment[environmentVariable], !value.isEmpty else { return fallback }
        guard let mode = RecordMode(name: value) else { throw .unknownRecordMode(value) }
        return mode
    }

    /// What a recording in this mode does with the cassette at `file`: whether recorded exchanges
    /// answer (the file's, when it exists, and those recorded since), and whether what they do not
    /// answer is recorded.
    ///
    /// - Throws: ``CassetteError/unreadable(file:reason:)`` in mode `none` when there is no file.
    /// - Parameter exists: Whether there is something to replay; by default, whether `file` exists.
    package func plan(for file: URL, exists: Bool? = nil) throws(CassetteError) -> (records: Bool, replays: Bool) {
        let exists = exists ?? FileManager.default.fileExists(atPath: file.path)
        switch self {
        case .none:
            guard exists else {
                throw .unreadable(
                    file: file.path,
                    reason: "there is no cassette here; record it first with record mode once "
                        + "(\(Self.environmentVariable)=once, or httpc --record-mode once)")
            }
            return (false, true)
        case .once: return (!exists, exists)
        case .newEpisodes: return (true, true)
        case .all: return (true, false)
        }
    }

    /// Parses `none`, `once`, `new_episodes` (or `newEpisodes`), `all`.
    package init?(name: String) {
        let normalized = name.lowercased().replacingOccurrences(of: "-", with: "_")
        if normalized == "newepisodes" {
            self = .newEpisodes
            return
        }
        self.init(rawValue: normalized)
    }
}
