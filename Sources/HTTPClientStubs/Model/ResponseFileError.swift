import Foundation

/// The file of a ``MockResponse/file(_:status:headers:)`` response cannot be used: each case
/// names it. Delivered as the request's transport error.
public enum ResponseFileError: Error, CustomStringConvertible, LocalizedError, Equatable {
    /// The file cannot be read; `reason` says what is there instead of a regular file ("it is
    /// a FIFO (named pipe), not a regular file") or is the system's ("No such file or directory").
    case unreadable(file: String, reason: String)
    /// The file was given by a URL that is not a `file:` URL (`.file(URL(string: "https://...")!)`):
    /// a stub never reads from the network. Carries the URL as written.
    case notAFileURL(String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason): "\(file): cannot be read (\(reason))."
        case .notAFileURL(let url):
            "\(url): not a file URL; a stub's file is read from disk, never from the network "
                + "(use URL(fileURLWithPath:) or Bundle.module.url(forResource:withExtension:))"
        }
    }

    public var errorDescription: String? { description }
}
