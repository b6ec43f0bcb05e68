import Foundation
import HTTPClient

/// A cassette file being recorded: exchanges are redacted, appended, and the whole file
/// written again atomically (a temporary file renamed over it), so what is on disk is always a
/// complete cassette. A recording stopped at any moment (Ctrl-C, a crash) keeps every exchange
/// saved before it, and never half of one. Exchanges saved together, in one call, cost one
/// write: a busy recorder writes what has queued up at once rather than once each.
///
/// The file is a cassette, or a HAR 1.2 archive when its name ends in `.har`.
final class CassetteWriter: Sendable {
    /// An exchange as saved, and its place in the cassette (from 0).
    typealias Saved = (interaction: Cassette.Interaction, index: Int)

    let file: URL
    let redaction: Redaction
    /// What is recorded, and how many of its interactions are known to hold no registered
    /// secret (those loaded from the file are searched once, at the first save).
    private let recorded: Locked<(cassette: Cassette, searched: Int)>

    /// A recording to `file` that starts from `cassette` (what the file held, or nothing).
    init(file: URL, cassette: Cassette, redaction: Redaction) {
        self.file = file
        self.redaction = redaction
        recorded = Locked((cassette, 0))
    }

    /// The interactions loaded and recorded so far.
    var cassette: Cassette { recorded.current.cassette }

    /// Saves one exchange, as saving a list of one does.
    ///
    /// - Throws: ``CassetteError``, and nothing is written, when the exchange is refused or the
    ///   file cannot be written.
    func save(_ raw: Cassette.Interaction) throws(CassetteError) -> Saved {
        try save([raw])[0].get()
    }

    /// Redacts each exchange, appends those that may be written and writes the file once,
    /// refusing registered secrets anywhere, and the values the rules hid in an exchange in what
    /// that exchange adds.
    ///
    /// The values an exchange hid are looked for in that exchange only: the interactions before
    /// it were searched when they were written, and hold what redaction put there, which the new
    /// exchange may carry back (a replayed `sid=REDACTED` cookie sent again).
    ///
    /// - Returns: For each exchange in order, the interaction as saved and its place, or the
    ///   ``CassetteError`` that kept it out: a secret it would write, a status outside 100...599
    ///   (the file could not be read back), or, for every exchange of the call, a file that
    ///   cannot be written (nothing is written then).
    func save(_ raws: [Cassette.Interaction]) -> [Result<Saved, CassetteError>] {
        // Redacted, and the values they hide found, before the lock: a body of megabytes is
        // scanned without holding up another save.
        let prepared = raws.map { raw in (interaction: redaction.apply(to: raw), hidden: redaction.scrubbing(raw)) }
        return recorded.withLock { recorded -> [Result<Saved, CassetteError>] in
            var updated = recorded.cassette
            var results: [Result<Saved, CassetteError>] = []
            var added: [Int] = []
            do throws(CassetteError) {
                // What the file held: searched once, then known clean.
                try updated.refuseLeaks(of: redaction, file: file.path, from: recorded.searched)
            } catch {
                return raws.map { _ in .failure(error) }
            }
            for (interaction, hidden) in prepared {
                let index = updated.interactions.count
                // Written, it would make the whole file unreadable: the next run could not start on it.
                if let problem = interaction.problem {
                    results.append(
                        .failure(.invalidInteraction(file: file.path, interaction: index + 1, reason: "\(problem), so it is not recorded")))
                    continue
                }
                updated.interactions.append(interaction)
                do throws(CassetteError) {
                    try updated.refuseLeaks(of: hidden, file: file.path, from: index)
                    try updated.refuseLeaks(of: redaction, file: file.path, from: index)
                } catch {
                    updated.interactions.removeLast()
                    results.append(.failure(error))
                    continue
                }
                added.append(results.count)
                results.append(.success((interaction, index)))
            }
            guard !added.isEmpty else { return results }
            do throws(CassetteError) {
                // Every interaction was searched above.
                try updated.write(to: file, refusing: .none)
            } catch {
                for position in added { results[position] = .failure(error) }
                return results
            }
            recorded = (updated, updated.interactions.count)
            return results
        }
    }
}
