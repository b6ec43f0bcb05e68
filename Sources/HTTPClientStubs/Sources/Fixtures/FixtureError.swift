import Foundation
import HTTPClient

/// A fixture that cannot be used, or none for a request; each case names the file or folder.
/// Equal when every field is equal.
public enum FixtureError: Error, CustomStringConvertible, LocalizedError, Equatable {
    /// The file does not follow the `.http` format; `line` is 1-based.
    case malformed(file: String, line: Int, reason: String)
    /// The file cannot be read; `reason` says what is there instead of a regular file ("it is
    /// a FIFO (named pipe), not a regular file", "it is a directory, not a regular file", "it is
    /// a symbolic link to nothing", "its symbolic links loop, or nest too deeply (...)") or is
    /// the system's ("Permission denied").
    case unreadable(file: String, reason: String)
    /// The fixture folder does not exist or is not a directory.
    case notADirectory(String)
    /// The Mocktail folder holds no `.tail` file (or no file or folder was given at all).
    case noMocktailFiles(String)
    /// No file in `folder` answers the request: every name tried, most specific first (none
    /// when every name would be longer than file systems allow).
    case noFixture(folder: String, triedFileNames: [String])

    public var description: String {
        switch self {
        case .malformed(let file, let line, let reason): "\(file):\(line): \(reason)."
        case .unreadable(let file, let reason): "\(file): cannot be read (\(reason))."
        case .notADirectory(let path): "\(path): the fixture folder does not exist or is not a directory."
        case .noMocktailFiles(let folder): "\(folder): no .tail file to read (a Mocktail folder holds files named *.tail)."
        case .noFixture(let folder, let triedFileNames) where triedFileNames.isEmpty:
            "no file in \(folder) can answer this request: every name it could have is longer than "
                + "\(FixtureNaming.maximumNameBytes) bytes, which file systems do not allow; stub it in code instead"
        case .noFixture(let folder, let triedFileNames):
            "no file in \(folder) for this request; tried, most specific first:\n"
                + triedFileNames.map { "         \($0)" }.joined(separator: "\n")
        }
    }

    public var errorDescription: String? { description }
}
