import Foundation
import HTTPClient

/// httpc's own rules for its files, checked before the request is sent so that nothing is
/// sent, and nothing touched, when a file cannot be used: `-T` sends a regular file only; `-o`
/// writes a new file or replaces a regular file, and into a folder writes a new file named
/// from the URL, never replacing one.
enum LocalFiles {
    /// The file `-T path` sends: a regular file, or a symbolic link to one. A directory, a
    /// FIFO, a device or a socket has no length to declare (or never ends), so it is refused.
    static func uploadSource(_ path: String) throws(LocalFileError) -> URL {
        guard path != "-" else {
            throw LocalFileError("-T -: reading the body from the standard input is not supported; save it to a file and give its path")
        }
        switch FileKind(at: path, followingLinks: true) {
        case .regular:
            guard access(path, R_OK) == 0 else { throw LocalFileError("-T \(path): cannot be read (\(FileKind.systemReason()))") }
            return URL(fileURLWithPath: path)
        case .missing:
            throw LocalFileError("-T \(path): no such file")
        case .unusable(let reason):
            throw LocalFileError("-T \(path): cannot be read (\(reason))")
        case let other:
            throw LocalFileError("-T \(path) is \(other): -T sends a regular file only")
        }
    }

    /// The file `-o path` writes the body of `url` to: `path` itself when it is new or a regular
    /// file, the file a symbolic link points to, or `path/<the URL's last path segment>` when
    /// `path` is a folder and no file of that name is there.
    static func downloadDestination(_ path: String, for url: URL) throws(LocalFileError) -> URL {
        guard !path.isEmpty else { throw LocalFileError("-o was given an empty file name") }
        let kind = FileKind(at: path, followingLinks: false)
        switch kind {
        case .missing:
            guard !path.hasSuffix("/") else { throw LocalFileError("-o \(path): no such folder") }
            try writableFolder(containing: path)
            return URL(fileURLWithPath: path)
        case .regular:
            try writableFolder(containing: path)
            return URL(fileURLWithPath: path)
        case .directory:
            return try newFile(in: path, for: url)
        case .symbolicLink:
            switch FileKind(at: path, followingLinks: true) {
            case .regular:
                // The file the link points to is replaced; the link stays a link.
                guard let target = realpath(path, nil) else {
                    throw LocalFileError("-o \(path): cannot be used (\(FileKind.systemReason()))")
                }
                defer { free(target) }
                let file = String(cString: target)
                try writableFolder(containing: file)
                return URL(fileURLWithPath: file)
            case .directory:
                return try newFile(in: path, for: url)
            case .missing:
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)).map { " (\($0))" } ?? ""
                throw LocalFileError("-o \(path) is a symbolic link to nothing\(target): -o does not create a file through a link")
            case .unusable(let reason):
                throw LocalFileError("-o \(path): cannot be used (\(reason))")
            case let other:
                throw LocalFileError("-o \(path) is a symbolic link to \(other): -o writes a regular file only")
            }
        case .unusable(let reason):
            throw LocalFileError("-o \(path): cannot be used (\(reason))")
        case let other:
            throw LocalFileError("-o \(path) is \(other): -o writes a regular file only")
        }
    }

    /// The file a download into `folder` writes: named from the URL's last path segment as curl's
    /// `-O` names it, and new (a name httpc chose replaces nothing).
    private static func newFile(in folder: String, for url: URL) throws(LocalFileError) -> URL {
        let name = try fileName(from: url)
        try writableFolder(folder)
        let file = folder.hasSuffix("/") ? folder + name : folder + "/" + name
        guard case .missing = FileKind(at: file, followingLinks: false) else {
            throw LocalFileError(
                "-o \(folder): \(file) already exists; into a folder, -o writes a new file only (give the file's path to replace it)")
        }
        return URL(fileURLWithPath: file)
    }

    /// The URL's last path segment, percent-decoded, when it can name a file in a folder: not
    /// empty, not `.` or `..`, no `/` (which would leave the folder), no control character (a
    /// NUL ends the path; a line break garbles every listing), at most 255 bytes.
    static func fileName(from url: URL) throws(LocalFileError) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? ""
        let segment = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        let refusal = "-o into a folder names the file from the URL, but the URL's path"
        guard let name = segment.removingPercentEncoding, !name.isEmpty else {
            throw LocalFileError("\(refusal) ends in no file name: give -o a file's path")
        }
        let isControl = { (scalar: Unicode.Scalar) in scalar.value < 0x20 || scalar.value == 0x7F }
        guard name != ".", name != "..", !name.contains("/"), !name.unicodeScalars.contains(where: isControl), name.utf8.count <= 255
        else {
            throw LocalFileError("\(refusal) ends in \"\(segment.prefix(80))\", which cannot name a file in it: give -o a file's path")
        }
        return name
    }

    /// Checks that a new file can be made in the folder that holds `path`.
    private static func writableFolder(containing path: String) throws(LocalFileError) {
        // Not NSString's deletingLastPathComponent: corelibs' traps on a one-character path.
        guard let slash = path.lastIndex(of: "/") else { return try writableFolder(".") }
        try writableFolder(slash == path.startIndex ? "/" : String(path[..<slash]))
    }

    private static func writableFolder(_ folder: String) throws(LocalFileError) {
        switch FileKind(at: folder, followingLinks: true) {
        case .directory:
            guard access(folder, W_OK | X_OK) == 0 else {
                throw LocalFileError("-o: cannot write in the folder \(folder) (\(FileKind.systemReason()))")
            }
        case .missing:
            throw LocalFileError("-o: the folder \(folder) does not exist")
        case .unusable(let reason):
            throw LocalFileError("-o: the folder \(folder) cannot be used (\(reason))")
        default:
            throw LocalFileError("-o: \(folder) is not a folder")
        }
    }
}
