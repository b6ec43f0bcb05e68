import Foundation

/// Replaces a file in one step, keeping the permissions of the file it replaces.
///
/// `package`: downloads (this module) and cassettes (HTTPClientStubs) both replace files this
/// way, and it is no API of the client.
package enum AtomicFile {
    /// Writes what `contents` hands to its sink into a temporary file beside `url`, given the
    /// mode of the file at `url` (when there is one) before any byte is written, then renames it
    /// over `url`. On any error the temporary file is removed and `url` is untouched.
    /// `package`: cassettes (HTTPClientStubs) stream their JSON to the file this way.
    ///
    /// - Parameters:
    ///   - url: The file to replace (or create).
    ///   - createsFolder: Create `url`'s folder when it is missing; otherwise that is an error.
    ///   - contents: Hands the new contents, in pieces, to its sink.
    package static func write(
        to url: URL, createsFolder: Bool = true, contents: (_ sink: (Data) throws -> Void) throws -> Void
    ) throws {
        let directory = url.deletingLastPathComponent()
        if createsFolder { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        let temporary = temporaryFile(beside: url)
        let existingMode = mode(of: url)
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, existingMode ?? 0o644)
        guard descriptor >= 0 else { throw systemError("cannot create \(temporary.lastPathComponent)") }
        do {
            defer { close(descriptor) }
            // open(2) applies the umask; the mode of the replaced file is restored exactly.
            if let existingMode, fchmod(descriptor, existingMode) != 0 { throw systemError("cannot set its permissions") }
            try contents { data in try writeAll(data, to: descriptor) }
            try commit(temporary, over: url)
        } catch {
            unlink(temporary.path)
            throw error
        }
    }

    /// Puts the finished file `source` at `url` in one step: renamed beside `url` when both are
    /// on one file system, copied there otherwise, then renamed over `url`. `source` is gone
    /// afterwards, whatever happened; on any error `url` is untouched and no temporary file stays.
    ///
    /// rename(2) never replaces a directory by a file (`EISDIR`) and never removes anything
    /// recursively: the caller refuses directories first, this is what keeps a race harmless.
    static func replace(_ url: URL, withContentsOf source: URL) throws {
        defer { unlink(source.path) }
        let temporary = temporaryFile(beside: url)
        guard rename(source.path, temporary.path) == 0 else {
            guard errno == EXDEV else { throw systemError("cannot move the file beside its destination") }
            // Another file system: copied in pieces, never held whole.
            guard let handle = FileHandle(forReadingAtPath: source.path) else { throw systemError("cannot read the downloaded file") }
            defer { try? handle.close() }
            try write(to: url, createsFolder: false) { sink in
                while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty { try sink(piece) }
            }
            return
        }
        do {
            // The new file gets the replaced file's permissions, or the usual ones of a new file.
            if chmod(temporary.path, mode(of: url) ?? 0o644) != 0 { throw systemError("cannot set its permissions") }
            try commit(temporary, over: url)
        } catch {
            unlink(temporary.path)
            throw error
        }
    }

    /// Why a path cannot be replaced as a file (``replaceableFile(at:createsFolder:)``).
    /// `package`: the stubs' file reads (HTTPClientStubs) name what is at a path as downloads do.
    package enum Refusal: Error, Equatable, CustomStringConvertible {
        /// What is there, or what the symbolic link there points to, is not a regular file:
        /// `missing` (or `unusable`) for a link to nothing.
        case notARegularFile(FileKind)
        /// The folder it would go in does not exist, and is not to be created.
        case missingFolder
        /// The system would not say what is there, or resolve the link; its reason.
        case unusable(String)

        /// What is at the path instead of a file, as messages say it.
        /// `package`: the stubs' file reads (HTTPClientStubs) give this reason.
        package var description: String {
            switch self {
            case .notARegularFile(.missing), .notARegularFile(.unusable), .notARegularFile(.symbolicLink):
                "it is a symbolic link to nothing"
            case .notARegularFile(let kind): "it is \(kind), not a regular file"
            case .missingFolder: "its folder does not exist"
            case .unusable(let reason): reason
            }
        }
    }

    /// The file that replacing `url` writes: `url` itself when nothing is there yet or a
    /// regular file is, or the target of a symbolic link to a regular file, so that the link
    /// stays a link (rename(2) over the link would put a file in its place). Anything else is
    /// refused: a directory, a FIFO (reading one blocks), a device, a socket, a link to nothing
    /// or to one of those.
    /// `package`: cassettes (HTTPClientStubs) check their file before recording, as downloads do.
    ///
    /// - Parameters:
    ///   - url: The file to replace (or create).
    ///   - createsFolder: A missing folder will be created; otherwise it is refused.
    package static func replaceableFile(at url: URL, createsFolder: Bool) throws(Refusal) -> URL {
        let path = url.path
        switch FileKind(at: path, followingLinks: false) {
        case .regular:
            return url
        case .missing:
            let parent = url.deletingLastPathComponent().path
            guard createsFolder || FileKind(at: parent, followingLinks: true) == .directory else { throw .missingFolder }
            return url
        case .unusable(let reason):
            throw .unusable(reason)
        case .symbolicLink:
            let target = FileKind(at: path, followingLinks: true)
            guard target == .regular else { throw .notARegularFile(target) }
        case let other:
            throw .notARegularFile(other)
        }
        guard let resolved = realpath(path, nil) else { throw .unusable(FileKind.systemReason()) }
        defer { free(resolved) }
        return URL(fileURLWithPath: String(cString: resolved))
    }

    /// A new name for a temporary file in `url`'s folder (hidden, unique), so that renaming it
    /// over `url` stays on one file system.
    private static func temporaryFile(beside url: URL) -> URL {
        // A name may take all of NAME_MAX (255 bytes): the temporary one keeps only its start.
        let start = String(decoding: url.lastPathComponent.utf8.prefix(100), as: UTF8.self)
        return url.deletingLastPathComponent().appendingPathComponent(".\(start).\(randomName()).tmp")
    }

    /// 32 random hexadecimal digits, from the system's generator (getrandom(2) on Linux,
    /// arc4random on Apple platforms), which needs no file descriptor: Foundation's `UUID()`
    /// reads /dev/urandom on Linux and, when the process has no descriptor left, gives all zeros.
    /// `package`: the stubs' cassette writer names its body tokens with it.
    package static func randomName() -> String {
        var generator = SystemRandomNumberGenerator()
        return [generator.next(), generator.next()].map { (value: UInt64) in
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }

    /// The permission bits of the file at `url`, when there is one.
    private static func mode(of url: URL) -> mode_t? {
        var existing = stat()
        return stat(url.path, &existing) == 0 ? existing.st_mode & 0o7777 : nil
    }

    private static func commit(_ temporary: URL, over url: URL) throws {
        // rename(2) replaces the destination in one step on the same file system.
        // (FileManager.replaceItemAt fails on swift-corelibs-foundation.)
        guard rename(temporary.path, url.path) == 0 else { throw systemError("cannot replace the file") }
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
        CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(action): \(FileKind.systemReason())"])
    }
}
