import Foundation
import HTTPClient

extension FileKind {
    /// The contents of the regular file at `url` (or the one a link points to), or why it cannot
    /// be read, in words that say what is there: a FIFO, a directory, a device, a link to
    /// nothing, links that loop, or the system's reason (`Permission denied`).
    ///
    /// Opening never blocks and reading always ends: the file is opened without waiting (a FIFO
    /// would wait for a writer) and what was opened is checked to be a regular file before a
    /// byte is read (a device such as `/dev/zero` never ends, a directory holds no contents), so
    /// nothing put in its place between a check and the read slips through. Fixtures, response
    /// files, cassettes, HAR archives and Mocktail files are read through it.
    static func contentsOfRegularFile(at url: URL) -> Result<Data, UnreadableFile> {
        let path = url.path
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(UnreadableFile(reason: whyNotOpened(path, errno: errno))) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failure(UnreadableFile(reason: systemReason())) }
        let kind = FileKind(mode: info.st_mode)
        guard kind == .regular else {
            return .failure(UnreadableFile(reason: AtomicFile.Refusal.notARegularFile(kind).description))
        }
        var data = Data(capacity: max(0, Int(info.st_size)))
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return .success(data) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(UnreadableFile(reason: systemReason()))
            }
            data.append(buffer, count: count)
        }
    }

    /// Why `path` could not be opened, `failure` being `open`'s `errno`: a link to nothing and
    /// links that loop are named as such, anything else is the system's reason.
    private static func whyNotOpened(_ path: String, errno failure: Int32) -> String {
        let reason = String(cString: strerror(failure))
        switch failure {
        case ELOOP:
            return "its symbolic links loop, or nest too deeply (\(reason))"
        case ENOENT where FileKind(at: path, followingLinks: false) == .symbolicLink:
            return AtomicFile.Refusal.notARegularFile(.missing).description
        default:
            return reason
        }
    }

    /// Why ``contentsOfRegularFile(at:)`` read nothing: a reason to follow the file's path.
    struct UnreadableFile: Error {
        let reason: String
    }
}
