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

    /// The first file that exists for `request`, or the names that were tried.
    @_spi(Engine) public func lookUp(_ request: RecordedRequest) -> Result<URL, FixtureError> {
        let names = fileNames(for: request)
        for name in names {
            let file = directory.appendingPathComponent(name, isDirectory: false)
            if FileManager.default.fileExists(atPath: file.path) { return .success(file) }
        }
        return .failure(.noFixture(folder: directory.path, triedFileNames: names))
    }

    /// The response stored in `file`: `.http` parsed strictly, `.json` served as a 200 with
    /// `Content-Type: application/json`.
    package static func response(from file: URL) throws(FixtureError) -> MockResponse {
        if file.pathExtension == "json" {
            do {
                return .json(raw: try Data(contentsOf: file))
            } catch {
                throw .unreadable(file: file.path, reason: SystemReason(error).description)
            }
        }
        return try HTTPResponseFile(contentsOf: file).mockResponse
    }
}
