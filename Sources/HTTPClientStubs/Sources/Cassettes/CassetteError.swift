import Foundation
import HTTPClient

/// What can go wrong with a cassette: every case about a file names it. Equal when every
/// field is equal.
public enum CassetteError: Error, CustomStringConvertible, LocalizedError, Equatable {
    /// The file cannot be read; `reason` is the system's ("No such file or directory").
    case unreadable(file: String, reason: String)
    /// The file is not a cassette: `reason` says what is wrong and where.
    case corrupt(file: String, reason: String)
    /// The file was written in a format version this library does not read.
    case unsupportedVersion(file: String, found: Int, supported: Int)
    /// The file cannot be written; `reason` is the system's ("Permission denied").
    case unwritable(file: String, reason: String)
    /// A registered secret is still in the cassette after redaction, or a compressed body could
    /// hide one; nothing was written. `interaction` is 1-based; `place` says where.
    case secretWouldBeWritten(file: String, interaction: Int?, place: String)
    /// Interaction number `interaction` (1-based) holds what no real exchange can.
    case invalidInteraction(file: String, interaction: Int, reason: String)
    /// The file is not a HAR 1.2 archive.
    case invalidHAR(file: String, reason: String)
    /// An unknown record mode name (in `HTTPCLIENT_RECORD_MODE` or `httpc --record-mode`).
    case unknownRecordMode(String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason): "\(file): the cassette cannot be read (\(reason))."
        case .corrupt(let file, let reason): "\(file): not a valid cassette: \(reason)."
        case .unsupportedVersion(let file, let found, let supported):
            "\(file): cassette version \(found) is not supported (this library reads version \(supported))."
        case .unwritable(let file, let reason): "\(file): the cassette cannot be written (\(reason))."
        case .secretWouldBeWritten(let file, let interaction, let place):
            "\(file): refusing to write the cassette: \(interaction.map { "interaction \($0)" } ?? "it") may still contain a "
                + "registered secret, in the \(place). Nothing was written; add a redaction rule for it."
        case .invalidHAR(let file, let reason): "\(file): not a HAR 1.2 file: \(reason)."
        case .invalidInteraction(let file, let interaction, let reason): "\(file): interaction \(interaction): \(reason)."
        case .unknownRecordMode(let value):
            "Unknown record mode \"\(value)\" (in \(RecordMode.environmentVariable) or --record-mode): use none, once, new_episodes or all."
        }
    }

    public var errorDescription: String? { description }
}
