import Foundation

extension StubRegistry {
    /// Answers requests from a fixture folder. The folder is one stub (so newer stubs still win,
    /// and `verify` counts its calls); a request with no file is unmatched, and the report
    /// lists every file name that was tried. Each answered request records its file in
    /// ``RecordedRequest/answerSource`` (``AnswerSource/file(_:)``).
    @discardableResult
    public func serve(
        _ fixtures: FixtureFolder,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> Stub {
        // The matcher finds the file once; the request carries it to the response.
        let matcher = RequestMatcher(fixtures.description) { request in
            switch fixtures.lookUp(request) {
            case .success(let file): .pass(RequestMatcher.Captures(source: .file(file)))
            case .failure(let miss): .fail(reason: miss.description)
            }
        }
        return stub(where: matcher, fileID: fileID, filePath: filePath, line: line, column: column)
            .respond(
                .computed { request in
                    guard case .file(let file) = request.answerSource else {
                        throw FixtureError.unreadable(file: fixtures.directory.path, reason: "no fixture file was matched for this request")
                    }
                    return try FixtureFolder.response(from: file)
                }
            )
            .named(fixtures.description)
            .allowingUnused()
    }
}
