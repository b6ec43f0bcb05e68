import Foundation
import HTTPClient

extension FileKind {
    /// The contents of the regular file at `url` (or the one a link points to), or why it cannot
    /// be read, in words. What is not a regular file is refused before it is opened: reading a
    /// FIFO blocks, a device (`/dev/zero`) never ends, a directory holds no contents. Cassettes,
    /// HAR archives and Mocktail files are read through it.
    static func contentsOfRegularFile(at url: URL) -> Result<Data, UnreadableFile> {
        switch FileKind(at: url.path, followingLinks: true) {
        case .regular, .missing, .unusable: break
        case let kind: return .failure(UnreadableFile(reason: AtomicFile.Refusal.notARegularFile(kind).description))
        }
        do {
            return .success(try Data(contentsOf: url))
        } catch {
            return .failure(UnreadableFile(reason: SystemReason(error).description))
        }
    }

    /// Why ``contentsOfRegularFile(at:)`` read nothing: a reason to follow the file's path.
    struct UnreadableFile: Error {
        let reason: String
    }
}
