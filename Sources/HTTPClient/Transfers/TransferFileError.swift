import Foundation

/// A file a download or an upload cannot use, named with what is wrong with it: what
/// ``HTTPClientError/file(_:)`` carries.
///
/// ```swift
/// do {
///     try await client.download(.get("report.pdf"), to: destination)
/// } catch .file(let error) {
///     print(error.path, error.problem)  // "/home/me/Downloads", a directory
/// }
/// ```
public struct TransferFileError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// Which file of the transfer this is.
    public enum Role: Sendable, Equatable {
        /// Where a download was asked to go.
        case downloadDestination
        /// The file an upload sends.
        case uploadSource
    }

    /// What is at a path that is not a regular file.
    public enum Kind: Sendable, Equatable {
        /// A directory (a folder).
        case directory
        /// A FIFO (a named pipe).
        case fifo
        /// A character device (`/dev/zero`, a terminal).
        case characterDevice
        /// A block device (a disk).
        case blockDevice
        /// A Unix-domain socket.
        case socket
        /// A symbolic link whose target does not exist.
        case danglingSymlink
        /// Anything else that is not a regular file.
        case other

        /// What the error's message calls it.
        var phrase: String {
            switch self {
            case .directory: "a directory"
            case .fifo: "a FIFO (named pipe)"
            case .characterDevice: "a character device"
            case .blockDevice: "a block device"
            case .socket: "a socket"
            case .danglingSymlink: "a symbolic link to nothing"
            case .other: "not a regular file"
            }
        }
    }

    /// What is wrong with the file.
    public enum Problem: Sendable, Equatable {
        /// Nothing is at the path (an upload's source).
        case missing
        /// The folder the destination would go in does not exist (or is not a folder).
        case missingFolder
        /// The path names something that is not a regular file (nor a symbolic link to one).
        case notARegularFile(Kind)
        /// The URL is not a `file:` URL (`path` holds the whole URL), or names a folder (it ends
        /// with `/`): a transfer reads or writes a file on this machine only, and never takes an
        /// `http` URL's path for one.
        case notAFileURL
        /// The upload's source changed size after its length was taken: `declared` bytes were
        /// announced (`Content-Length`), `found` are there now. No byte past `declared` is sent.
        case sizeChanged(declared: Int64, found: Int64)
        /// The file could not be read; `reason` is the system's.
        case unreadable(reason: String)
        /// The file could not be written (a read-only folder, a full disk); `reason` is the system's.
        case unwritable(reason: String)
    }

    /// Which file of the transfer this is.
    public let role: Role
    /// The path as given (for a symbolic link: the link, not its target).
    public let path: String
    /// What is wrong with it.
    public let problem: Problem

    /// An error for the file at `path`.
    ///
    /// - Parameters:
    ///   - role: Which file of the transfer it is.
    ///   - path: Its path.
    ///   - problem: What is wrong with it.
    init(_ role: Role, path: String, problem: Problem) {
        self.role = role
        self.path = path
        self.problem = problem
    }

    public var description: String {
        let file = role == .downloadDestination ? "The download destination \(path)" : "The file to upload, \(path),"
        switch problem {
        case .missing:
            return "\(file) does not exist."
        case .missingFolder:
            return "\(file) is in a folder that does not exist: create the folder first."
        case .notARegularFile(let kind):
            return role == .downloadDestination
                ? "\(file) is \(kind.phrase): give the path of a file (a download replaces a regular file only)."
                : "\(file) is \(kind.phrase): only a regular file can be uploaded."
        case .notAFileURL:
            return "\(file) is not the URL of a file: give a file URL, such as URL(fileURLWithPath:), that does not end with /."
        case .sizeChanged(let declared, let found):
            return "\(file) changed size while it was sent: \(declared) bytes were declared, it now has \(found) "
                + "(no more than \(declared) were sent). Upload it once it no longer changes."
        case .unreadable(let reason):
            return "\(file) cannot be read: \(reason)."
        case .unwritable(let reason):
            return "\(file) cannot be written: \(reason)."
        }
    }

    public var errorDescription: String? { description }
}
