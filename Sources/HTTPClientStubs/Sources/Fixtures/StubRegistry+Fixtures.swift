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
        serveFiles(
            from: fixtures.description, directory: fixtures.directory.path,
            lookUp: { request in fixtures.lookUp(request).mapError { $0 } },
            response: { file in try FixtureFolder.response(from: file) },
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Answers requests from Mocktail files, as OHHTTPStubs users keep them: the first file
    /// whose method and URL patterns match answers. As with a fixture folder, the files are one
    /// stub; an unmatched request's report names every file tried and why it did not match;
    /// each answered request records its file in ``RecordedRequest/answerSource``.
    ///
    /// ```swift
    /// stubs.serve(try MocktailFiles([mocktailFolder]))
    /// ```
    @discardableResult
    public func serve(
        _ mocktails: MocktailFiles,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> Stub {
        serveFiles(
            from: mocktails.description, directory: mocktails.description,
            lookUp: { request in mocktails.lookUp(request).map(\.url).mapError { $0 } },
            response: { file in try mocktails.response(from: file) },
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// One stub over a source of files: `lookUp` finds the file for a request, or says why
    /// none does; `response` reads the answer from that file.
    private func serveFiles(
        from source: String, directory: String,
        lookUp: @escaping @Sendable (RecordedRequest) -> Result<URL, any Error>,
        response: @escaping @Sendable (URL) throws -> MockResponse,
        fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
    ) -> Stub {
        // The matcher finds the file once; the request carries it to the response.
        let matcher = RequestMatcher(source) { request in
            switch lookUp(request) {
            case .success(let file): .pass(RequestMatcher.Captures(source: .file(file)))
            case .failure(let miss): .fail(reason: String(describing: miss))
            }
        }
        return stub(where: matcher, fileID: fileID, filePath: filePath, line: line, column: column)
            .respond(
                .computed { request in
                    guard case .file(let file) = request.answerSource else {
                        throw FixtureError.unreadable(file: directory, reason: "no fixture file was matched for this request")
                    }
                    return try response(file)
                }
            )
            .named(source)
            .allowingUnused()
    }
}
