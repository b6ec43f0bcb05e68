import Foundation

/// What is at a local path, as `lstat` or `stat` says.
///
/// `package`: httpc (its `-o` and `-T` checks) and the transfers (download destinations,
/// upload sources) both classify local paths, and it is no API of the client.
package enum FileKind: Equatable, Sendable, CustomStringConvertible {
    /// What the path's mode says is there (`other`: a type this list does not name).
    case regular, directory, symbolicLink, fifo, characterDevice, blockDevice, socket, other
    /// Nothing is there (or a folder on the way is missing or not a folder).
    case missing
    /// The system would not say (permission, a loop of links...): its reason.
    case unusable(String)

    /// What is at `path`: with `followingLinks`, what a symbolic link points to (`stat`),
    /// otherwise the link itself (`lstat`).
    /// `package`: fixture folders (HTTPClientStubs) and httpc's `-o` and `-T` look at a path this way.
    package init(at path: String, followingLinks: Bool) {
        var info = stat()
        guard (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0 else {
            self = errno == ENOENT || errno == ENOTDIR ? .missing : .unusable(Self.systemReason())
            return
        }
        self.init(mode: info.st_mode)
    }

    /// The kind a `stat` structure's `st_mode` names (as `fstat` gives it for an open file).
    /// `package`: the stubs' file reads (HTTPClientStubs) classify the file they opened.
    package init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        case S_IFLNK: self = .symbolicLink
        case S_IFIFO: self = .fifo
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        case S_IFSOCK: self = .socket
        default: self = .other
        }
    }

    /// The system's words for the last error (`errno`): what ``unusable(_:)`` carries, and
    /// the reason every other refused file operation here gives.
    /// `package`: the stubs' file reads (HTTPClientStubs) and httpc give the system's reason this way.
    package static func systemReason() -> String {
        String(cString: strerror(errno))
    }

    /// What is there, as messages name it (`a directory`).
    /// `package`: as visible as the type, which is `CustomStringConvertible`; the file errors of
    /// downloads and of the stubs (HTTPClientStubs, through `AtomicFile.Refusal`) say it.
    package var description: String {
        switch self {
        case .regular: "a regular file"
        case .directory: "a directory"
        case .symbolicLink: "a symbolic link"
        case .fifo: "a FIFO (named pipe)"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .socket: "a socket"
        case .other: "not a regular file"
        case .missing: "missing"
        case .unusable(let reason): "unusable (\(reason))"
        }
    }
}
