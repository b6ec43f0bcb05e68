import Foundation
import HTTPClient

/// Mocktail (`.tail`) files, as OHHTTPStubs loads them, read as one source of stubs:
/// ``StubRegistry/serve(_:fileID:filePath:line:column:)-(MocktailFiles,_,_,_,_)`` registers them,
/// and requests are then answered, verified and reported like any stub.
///
/// A file is one canned answer and the requests it is for:
///
/// ```
/// GET|POST
/// https://api\.example\.com/users(\?.*)?$
/// 200
/// application/json
/// Cache-Control: no-store
///
/// {"users": []}
/// ```
///
/// Line 1 is a regular expression for the method, line 2 one for the whole URL: both are
/// case-insensitive and searched, not anchored, as OHHTTPStubs does (`/users` matches any URL
/// that contains it; write `^` and `$` to pin it down). Line 3 is the status (100...599), line 4
/// the Content-Type, bare (`application/json`) or as a header line (`Content-Type: text/csv`);
/// header lines follow, then ONE blank line, then the body, kept byte for byte. A Content-Type
/// ending in `;base64` (`image/png;base64`) marks a base64 body: it is decoded (line breaks
/// inside it are ignored) and served under the type without the marker. LF and CRLF line ends
/// are both accepted; the format has no comments.
///
/// Every file is parsed when the value is made, so a malformed one fails the test's setup with
/// a ``FixtureError`` naming its file and line, not a request later.
public struct MocktailFiles: Sendable, CustomStringConvertible {
    /// The files, in the order they are tried: the first whose patterns match answers.
    let files: [MocktailFile]
    /// What was given, for reports.
    private let locations: [URL]

    /// Reads `.tail` files: each URL is a file (read whatever its extension) or a folder,
    /// whose `.tail` files are read in name order (other files and subfolders are skipped).
    /// Files are tried in the order given, the first match answers.
    ///
    /// - Parameter locations: Files and folders, as file URLs.
    /// - Throws: ``FixtureError/malformed(file:line:reason:)`` for a file that breaks the
    ///   format, ``FixtureError/unreadable(file:reason:)`` for one that cannot be read (or does
    ///   not exist), ``FixtureError/noMocktailFiles(_:)`` for a folder with no `.tail` file, or
    ///   for no URL at all.
    public init(_ locations: [URL]) throws(FixtureError) {
        guard !locations.isEmpty else { throw .noMocktailFiles("MocktailFiles([])") }
        var files: [MocktailFile] = []
        for location in locations {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: location.path, isDirectory: &isDirectory), isDirectory.boolValue {
                let found = try Self.tailFiles(in: location)
                guard !found.isEmpty else { throw .noMocktailFiles(location.path) }
                for file in found { files.append(try MocktailFile(contentsOf: file)) }
            } else {
                files.append(try MocktailFile(contentsOf: location))
            }
        }
        self.files = files
        self.locations = locations
    }

    public var description: String { "Mocktail files " + locations.map(\.path).joined(separator: ", ") }

    /// The first file whose patterns match `request`, or why each file did not.
    func lookUp(_ request: RecordedRequest) -> Result<MocktailFile, MocktailMiss> {
        var tried: [(file: URL, reason: String)] = []
        for file in files {
            guard let reason = file.mismatch(for: request) else { return .success(file) }
            tried.append((file.url, reason))
        }
        return .failure(MocktailMiss(tried: tried))
    }

    /// The answer of the file at `url`, one of ``files``.
    func response(from url: URL) throws(FixtureError) -> MockResponse {
        guard let file = files.first(where: { $0.url == url }) else {
            throw .unreadable(file: url.path, reason: "it is not one of the \(description)")
        }
        // As a `.http` file's: an event stream is served one event per chunk.
        return file.answer.mockResponse
    }

    /// The files of `data`, one Mocktail file named `file` in errors. For the fuzzers and
    /// benchmarks; users read files with ``init(_:)``.
    @_spi(Engine) public init(parsing data: Data, file: URL) throws(FixtureError) {
        files = [try MocktailFile(parsing: data, url: file)]
        locations = [file]
    }

    /// The answer of the first file whose patterns match `request`, `nil` when none does. For
    /// the fuzzers and benchmarks.
    @_spi(Engine) public func answer(for request: RecordedRequest) -> HTTPResponseFile? {
        try? lookUp(request).get().answer
    }

    /// The regular files named `*.tail` directly in `folder`, sorted by name.
    private static func tailFiles(in folder: URL) throws(FixtureError) -> [URL] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw .unreadable(file: folder.path, reason: SystemReason(error).description)
        }
        return names.filter { $0.hasSuffix(".tail") }.sorted().compactMap { name in
            let file = folder.appendingPathComponent(name, isDirectory: false)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue else { return nil }
            return file
        }
    }
}

/// Why no Mocktail file answers a request: each file tried, in order, with its reason.
struct MocktailMiss: Error, CustomStringConvertible {
    let tried: [(file: URL, reason: String)]

    var description: String {
        "no Mocktail file matches this request; tried, in order:\n"
            + tried.map { "         \($0.file.path): \($0.reason)" }.joined(separator: "\n")
    }
}
