import Foundation
import HTTPClient

/// A folder of canned responses named by the VOKMockData convention, so an existing
/// VOKMockData folder works unchanged. It is a source of stubs: ``StubRegistry/serve(_:fileID:filePath:line:column:)-(FixtureFolder,_,_,_,_)``
/// registers it, and requests are then answered, verified and reported like any stub.
///
/// Files are found by probing the candidate names directly (`.http` first, then `.json`); the
/// folder is never listed, so 10,000 fixtures cost the same as 10.
public struct FixtureFolder: Sendable, CustomStringConvertible {
    /// The folder.
    let directory: URL
    /// Whether wildcard names (`?*`, `|*`) are tried, after every exact name.
    let wildcards: Bool

    /// A folder on disk.
    ///
    /// - Throws: ``FixtureError/notADirectory(_:)`` when `directory` is not a folder.
    public init(directory: URL, wildcards: Bool = false) throws(FixtureError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .notADirectory(directory.path)
        }
        self.directory = directory
        self.wildcards = wildcards
    }

    /// A folder inside a bundle, such as a test target's `Bundle.module` with
    /// `resources: [.copy("Fixtures")]`.
    public init(bundle: Bundle, subdirectory: String, wildcards: Bool = false) throws(FixtureError) {
        guard let resources = bundle.resourceURL else { throw .notADirectory("\(bundle.bundlePath)/\(subdirectory)") }
        try self.init(directory: resources.appendingPathComponent(subdirectory, isDirectory: true), wildcards: wildcards)
    }

    public var description: String { "fixture folder \(directory.path)" }

    /// The file names (with extension) tried for `request`, in order. For the fuzzers and
    /// benchmarks; a miss reports the same names in its ``FixtureError``.
    @_spi(Engine) public func fileNames(for request: RecordedRequest) -> [String] {
        let names = FixtureNaming.candidates(for: request, wildcards: wildcards)
        return names.map { $0 + ".http" } + names.map { $0 + ".json" }
    }

    /// The first name for `request` that something is at, or the names that were tried. What is
    /// there is not followed: a link to nothing, links that loop, a FIFO or a folder under a
    /// fixture's name is that request's fixture, and reading it says what is wrong, rather than
    /// the request being reported as having no file.
    @_spi(Engine) public func lookUp(_ request: RecordedRequest) -> Result<URL, FixtureError> {
        let names = fileNames(for: request)
        for name in names {
            let file = directory.appendingPathComponent(name, isDirectory: false)
            if FileKind(at: file.path, followingLinks: false) != .missing { return .success(file) }
        }
        return .failure(.noFixture(folder: directory.path, triedFileNames: names))
    }

    /// The response stored in `file`: `.http` parsed strictly, `.json` served as a 200 with
    /// `Content-Type: application/json`.
    ///
    /// - Throws: ``FixtureError/unreadable(file:reason:)`` naming what is there when it is not
    ///   a regular file (a FIFO, a directory, a link to nothing, links that loop), or the
    ///   system's reason; opening it never blocks.
    package static func response(from file: URL) throws(FixtureError) -> MockResponse {
        guard file.pathExtension == "json" else { return try HTTPResponseFile(contentsOf: file).mockResponse }
        switch FileKind.contentsOfRegularFile(at: file) {
        case .success(let data): return .json(raw: data)
        case .failure(let unreadable): throw .unreadable(file: file.path, reason: unreadable.reason)
        }
    }
}
