import Foundation

extension StubRegistry {
    /// Answers requests from a fixture folder. The folder is one stub (so newer stubs still win,
    /// and `verify` counts its calls); a request with no file is unmatched, and the report
    /// lists every file name that was tried.
    @discardableResult
    public func serve(
        _ fixtures: FixtureFolder,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> Stub {
        let matcher = RequestMatcher(fixtures.description) { request in
            switch fixtures.lookUp(request) {
            case .success(let file): .pass(captures: [FixtureFolder.fileCaptureKey: file.path])
            case .failure(let miss): .fail(reason: miss.description)
            }
        }
        return stub(where: matcher, fileID: fileID, filePath: filePath, line: line, column: column)
            .respond { request in
                let path = request.pathParameters[FixtureFolder.fileCaptureKey] ?? ""
                return try FixtureFolder.response(from: URL(fileURLWithPath: path))
            }
            .named(fixtures.description)
            .allowingUnused()
    }
}

extension FixtureFolder {
    /// The capture that carries the matched file from the matcher to the response, so the file
    /// is found once per request.
    static let fileCaptureKey = "fixtureFile"
}
