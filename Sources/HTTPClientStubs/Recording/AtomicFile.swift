import Foundation
import HTTPClient

/// Replaces a file in one step, keeping the permissions of the file it replaces.
enum AtomicFile {
    /// Writes what `contents` hands to its sink into a temporary file beside `url`, given the
    /// mode of the file at `url` (when there is one) before any byte is written, then renames it
    /// over `url`. On any error the temporary file is removed and `url` is untouched.
    static func write(to url: URL, contents: (_ sink: (Data) throws -> Void) throws -> Void) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        var existing = stat()
        let existingMode: mode_t? = stat(url.path, &existing) == 0 ? existing.st_mode & 0o7777 : nil
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, existingMode ?? 0o644)
        guard descriptor >= 0 else { throw systemError("cannot create \(temporary.lastPathComponent)") }
        do {
            defer { close(descriptor) }
            // open(2) applies the umask; the mode of the replaced file is restored exactly.
            if let existingMode, fchmod(descriptor, existingMode) != 0 { throw systemError("cannot set its permissions") }
            try contents { data in try writeAll(data, to: descriptor) }
            // rename(2) replaces the destination in one step on the same file system.
            // (FileManager.replaceItemAt fails on swift-corelibs-foundation.)
            guard rename(temporary.path, url.path) == 0 else { throw systemError("cannot replace the file") }
        } catch {
            unlink(temporary.path)
            throw error
        }
    }

    private static func writeAll(_ data: Data, to descriptor: Int32) throws {
        try data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw systemError("cannot write")
                }
                offset += written
            }
        }
    }

    private static func systemError(_ action: String) -> any Error {
        let reason = String(cString: strerror(errno))
        return CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(action): \(reason)"])
    }
}
