import Foundation
import HTTPClient

/// A cassette file being recorded: each exchange is redacted, appended, and the whole file
/// written again atomically (a temporary file renamed over it), so what is on disk is always a
/// complete cassette. A recording stopped at any moment (Ctrl-C, a crash) keeps every exchange
/// saved before it, and never half of one.
///
/// The file is a cassette, or a HAR 1.2 archive when its name ends in `.har`.
final class CassetteWriter: Sendable {
    let file: URL
    let redaction: Redaction
    private let recorded: Locked<Cassette>

    /// A recording to `file` that starts from `cassette` (what the file held, or nothing).
    init(file: URL, cassette: Cassette, redaction: Redaction) {
        self.file = file
        self.redaction = redaction
        recorded = Locked(cassette)
    }

    /// The interactions loaded and recorded so far.
    var cassette: Cassette { recorded.current }

    /// Redacts `raw`, appends it and writes the file, refusing registered secrets anywhere, and
    /// the values the rules hid in this exchange in what it adds.
    ///
    /// The values this exchange hid are looked for in this exchange only: the interactions
    /// before it were searched when they were written, and hold what redaction put there, which
    /// the new exchange may carry back (a replayed `sid=REDACTED` cookie sent again).
    ///
    /// - Returns: The interaction as saved, and its place in the cassette (from 0).
    /// - Throws: ``CassetteError``, and nothing is written, when a secret would be, when the
    ///   exchange is one no cassette can hold (a status outside 100...599: the file could not be
    ///   read back), or when the file cannot be written.
    func save(_ raw: Cassette.Interaction) throws(CassetteError) -> (interaction: Cassette.Interaction, index: Int) {
        let interaction = redaction.apply(to: raw)
        let hiddenHere = redaction.scrubbing(raw)
        let result = recorded.withLock { cassette -> Result<Int, CassetteError> in
            // Written, it would make the whole file unreadable: the next run could not start on it.
            if let problem = interaction.problem {
                return .failure(
                    .invalidInteraction(
                        file: file.path, interaction: cassette.interactions.count + 1, reason: "\(problem), so it is not recorded"))
            }
            var updated = cassette
            updated.interactions.append(interaction)
            do throws(CassetteError) {
                try updated.refuseLeaks(of: hiddenHere, file: file.path, from: updated.interactions.count - 1)
                try updated.write(to: file, refusing: redaction)
            } catch {
                return .failure(error)
            }
            cassette = updated
            return .success(updated.interactions.count - 1)
        }
        return (interaction, try result.get())
    }
}
