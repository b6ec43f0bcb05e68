import Foundation
import HTTPClient

/// The progress of `httpc -o`: how much of the body arrived (said when the download fails), and
/// its bar: one line on stderr, redrawn at most ten times a second, and nothing at all when
/// stderr is not a terminal.
final class Progress: @unchecked Sendable {
    private let isShown: Bool
    private let started = Date()
    private let lock = NSLock()
    private var lastDrawn = Date.distantPast
    private var drewAnything = false
    private var latest: TransferProgress?

    init(showing isShown: Bool) {
        self.isShown = isShown
    }

    /// The latest progress reported, `nil` before any of the body arrived.
    var received: TransferProgress? { lock.withLock { latest } }

    func show(_ progress: TransferProgress) {
        lock.withLock { latest = progress }
        guard isShown else { return }
        let now = Date()
        let line: String? = lock.withLock {
            let done = progress.expectedBytes.map { progress.bytes >= $0 } ?? false
            guard done || now.timeIntervalSince(lastDrawn) >= 0.1 else { return nil }
            lastDrawn = now
            drewAnything = true
            return progress.summary(after: now.timeIntervalSince(started))
        }
        if let line { FileHandle.standardError.write(Data(("\r" + line + "\u{1B}[K").utf8)) }
    }

    func finish() {
        if lock.withLock({ drewAnything }) { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
