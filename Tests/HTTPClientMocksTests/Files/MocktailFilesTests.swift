import Foundation
import HTTPClient
import HTTPClientMocks
@_spi(Engine) import HTTPClientStubs
import Testing

@Suite("Mocktail files")
struct MocktailFilesTests {
    let folder: TemporaryFolder
    let failures = CollectedFailures()

    init() throws {
        folder = try TemporaryFolder()
    }

    func file(_ name: String) -> URL { folder.url.appendingPathComponent(name) }

    /// A client over a registry that serves the folder (or `locations`).
    func client(_ locations: [URL]? = nil) throws -> (HTTPClient, StubRegistry) {
        let stubs = StubRegistry("mocktail", reporting: failures.reporting)
        stubs.serve(try MocktailFiles(locations ?? [folder.url]))
        return (HTTPClient(session: MockURLSession(stubs: stubs)), stubs)
    }

    /// The error reading `text` as a Mocktail file gives.
    func parseError(_ text: String) throws -> FixtureError? {
        try folder.write("bad.tail", text)
        return #expect(throws: FixtureError.self) { try MocktailFiles([folder.url]) }
    }

    func malformed(line: Int, _ reason: String) -> FixtureError {
        .malformed(file: file("bad.tail").path, line: line, reason: reason)
    }

    // MARK: The format

    @Test func aFileAnswersWithItsStatusContentTypeHeadersAndBody() async throws {
        try folder.write("users.tail", "GET\n/users$\n201\napplication/json\nX-Total: 2\nX-Page: 1\n\n[1, 2]\n")
        let response = try await client().0.get(testURL("https://api.example.com/users"))
        #expect(response.statusCode == 201)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["X-Total"] == "2")
        #expect(response.headers["X-Page"] == "1")
        #expect(response.text == "[1, 2]\n")
    }

    @Test func theAnsweredRequestRecordsItsFile() async throws {
        try folder.write("a.tail", "GET\n/a\n200\ntext/plain\n\na")
        let (client, stubs) = try client()
        _ = try await client.get(testURL("https://h/a"))
        #expect(try #require(stubs.stubs.first).calls.map(\.answerSource) == [.file(file("a.tail"))])
    }

    @Test func patternsAreSearchedAnywhereInTheURLNotAnchored() async throws {
        try folder.write("users.tail", "GET\n/users\n200\ntext/plain\n\nusers")
        let client = try client().0
        #expect(try await client.get(testURL("https://h/v2/users/7?x=1")).text == "users")
    }

    @Test func anchorsInAPatternPinTheURLDown() async throws {
        try folder.write("users.tail", "GET\n^https://h/users$\n200\ntext/plain\n\nusers")
        let client = try client().0
        #expect(try await client.get(testURL("https://h/users")).text == "users")
        await #expect(throws: HTTPClientError.self) { try await client.get(testURL("https://h/users/7")) }
    }

    @Test func patternsIgnoreCase() async throws {
        try folder.write("users.tail", "get|post\nHTTPS://H/USERS\n200\ntext/plain\n\nusers")
        let client = try client().0
        #expect(try await client.send(.post(testURL("https://h/users"), body: .text("x"))).text == "users")
    }

    @Test func theMethodPatternMustMatchTheMethod() async throws {
        try folder.write("users.tail", "^POST$\n/users\n200\ntext/plain\n\nusers")
        await #expect(throws: HTTPClientError.self) { try await client().0.get(testURL("https://h/users")) }
    }

    @Test func theFourthLineMayBeAContentTypeHeaderLine() async throws {
        try folder.write("a.tail", "GET\n/a\n200\nContent-Type: text/csv\nConnection: close\n\na,b")
        let response = try await client().0.get(testURL("https://h/a"))
        #expect(response.headers["Content-Type"] == "text/csv")
        #expect(response.headers["Connection"] == "close")
    }

    @Test func aContentTypeEndingInBase64MarksABase64BodyServedUnderThePlainType() async throws {
        let bytes = Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF, 0x0A])
        let encoded = bytes.base64EncodedString()
        // Wrapped over two lines, as long base64 bodies are.
        let wrapped = encoded.prefix(4) + "\n" + encoded.dropFirst(4) + "\n"
        try folder.write("logo.tail", "GET\nlogo.png\n200\nimage/png;base64\n\n" + wrapped)
        let response = try await client().0.get(testURL("https://h/logo.png"))
        #expect(response.headers["Content-Type"] == "image/png")
        #expect(response.body == bytes)
    }

    @Test func crlfLineEndsAreAccepted() async throws {
        try folder.write("a.tail", "GET\r\n/a\r\n202\r\ntext/plain\r\nX-A: 1\r\n\r\nbody")
        let response = try await client().0.get(testURL("https://h/a"))
        #expect(response.statusCode == 202)
        #expect(response.headers["X-A"] == "1")
        #expect(response.text == "body")
    }

    /// Editors on Windows start UTF-8 files with a byte order mark; Foundation's UTF-8 decoding
    /// drops it, so it never becomes an invisible first character of the method pattern.
    @Test func aLeadingByteOrderMarkIsNotPartOfTheMethodPattern() async throws {
        try (Data([0xEF, 0xBB, 0xBF]) + Data("GET\n/a\n200\ntext/plain\n\na".utf8)).write(to: file("a.tail"))
        #expect(try await client().0.get(testURL("https://h/a")).text == "a")
    }

    @Test func blankLinesInsideTheBodySurvive() async throws {
        try folder.write("a.tail", "GET\n/a\n200\ntext/plain\n\none\n\ntwo\n")
        #expect(try await client().0.get(testURL("https://h/a")).text == "one\n\ntwo\n")
    }

    @Test func aFileWithNoBlankLineHasAnEmptyBody() async throws {
        try folder.write("a.tail", "DELETE\n/a\n204\ntext/plain\n")
        let response = try await client().0.send(.delete(testURL("https://h/a")))
        #expect(response.statusCode == 204)
        #expect(response.body.isEmpty)
    }

    // MARK: Which file answers

    @Test func inAFolderTheFirstMatchingFileByNameAnswers() async throws {
        try folder.write("b-any.tail", "GET\n.*\n200\ntext/plain\n\nany")
        try folder.write("a-users.tail", "GET\n/users\n200\ntext/plain\n\nusers")
        let client = try client().0
        #expect(try await client.get(testURL("https://h/users")).text == "users")
        #expect(try await client.get(testURL("https://h/other")).text == "any")
    }

    @Test func aListIsTriedInTheOrderGiven() async throws {
        try folder.write("b-any.tail", "GET\n.*\n200\ntext/plain\n\nany")
        try folder.write("a-users.tail", "GET\n/users\n200\ntext/plain\n\nusers")
        let client = try client([file("b-any.tail"), file("a-users.tail")]).0
        #expect(try await client.get(testURL("https://h/users")).text == "any")
    }

    @Test func aFolderSkipsFilesThatAreNotTailFiles() async throws {
        try folder.write("a.tail", "GET\n/a\n200\ntext/plain\n\na")
        try folder.write("notes.txt", "not a Mocktail file")
        #expect(try await client().0.get(testURL("https://h/a")).text == "a")
    }

    @Test func aFolderNamedLikeATailFileIsSkipped() async throws {
        try FileManager.default.createDirectory(at: file("nested.tail"), withIntermediateDirectories: false)
        try folder.write("a.tail", "GET\n/a\n200\ntext/plain\n\na")
        #expect(try await client().0.get(testURL("https://h/a")).text == "a")
    }

    @Test func hundredsOfConcurrentRequestsEachGetTheirOwnFile() async throws {
        for index in 0..<20 { try folder.write("\(index).tail", "GET\n/items/\(index)$\n200\ntext/plain\n\n\(index)") }
        let client = try client().0
        let answers = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for request in 0..<400 {
                group.addTask { (request % 20, try await client.get(testURL("https://h/items/\(request % 20)")).text) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 400)
        #expect(answers.allSatisfy { "\($0.0)" == $0.1 })
    }

    @Test func theFilesAreOneStubThatCountsItsCalls() async throws {
        try folder.write("a.tail", "GET\n/a\n200\ntext/plain\n\na")
        try folder.write("b.tail", "GET\n/b\n200\ntext/plain\n\nb")
        let (client, stubs) = try client()
        _ = try await client.get(testURL("https://h/a"))
        _ = try await client.get(testURL("https://h/b"))
        let mocktails = try #require(stubs.stubs.first)
        #expect(stubs.verify(mocktails, requested: .exactly(2)))
    }

    @Test func anUnmatchedRequestsReportNamesEveryFileTriedAndWhy() async throws {
        try folder.write("a.tail", "POST\n/a\n200\ntext/plain\n\na")
        try folder.write("b.tail", "GET\n/b$\n200\ntext/plain\n\nb")
        let (client, stubs) = try client()
        await #expect(throws: HTTPClientError.self) { try await client.get(testURL("https://h/c")) }
        let report = try #require(stubs.unmatchedRequests.first?.description)
        #expect(
            report.contains(
                "no Mocktail file matches this request; tried, in order:\n"
                    + "         \(file("a.tail").path): the method GET does not match the pattern POST\n"
                    + "         \(file("b.tail").path): the URL does not match the pattern /b$"))
        #expect(failures.all.count == 1)
    }

    @Test func aPatternThatBacktracksWithoutEndIsStoppedAndReported() async throws {
        try folder.write("slow.tail", "GET\n(a+)+$\n200\ntext/plain\n\nslow")
        let (client, stubs) = try client()
        let started = Date()
        let hostile = "https://h/" + String(repeating: "a", count: 64) + "!"
        await #expect(throws: HTTPClientError.self) { try await client.get(testURL(hostile)) }
        #expect(Date().timeIntervalSince(started) < 50)  // unbounded, 2^64 steps; capped, half a second
        let report = try #require(stubs.unmatchedRequests.first?.description)
        #expect(report.contains("could not be searched with the pattern (a+)+$ within 0.5 s"))
    }

    // MARK: Both transports

    @Test func theURLProtocolTransportAnswersFromAFolder() async throws {
        try folder.write("logo.tail", "GET\n/logo$\n200\nimage/gif;base64\nX-Kind: logo\n\nR0lGODlh")
        let stubs = StubRegistry("mocktail", reporting: failures.reporting)
        stubs.serve(try MocktailFiles([folder.url]))
        let response = try await HTTPClient(session: stubs.makeURLSession()).get(testURL("https://h/logo"))
        #expect(response.statusCode == 200)
        #expect(response.headers["Content-Type"] == "image/gif")
        #expect(response.headers["X-Kind"] == "logo")
        #expect(response.body == Data("GIF89a".utf8))
    }

    // MARK: Errors

    @Test func aMissingURLLineNamesLineTwo() throws {
        #expect(
            try parseError("GET")
                == malformed(
                    line: 2,
                    "the file ends before its URL pattern (such as /users/[0-9]+$): a Mocktail file starts with four "
                        + "lines, a method pattern, a URL pattern, a status and a Content-Type"))
    }

    @Test func aBlankLineWhereTheContentTypeBelongsNamesItsLine() throws {
        let error = try parseError("GET\n/a\n200\n\nbody")
        #expect(error.map { "\($0)" }?.hasPrefix("\(file("bad.tail").path):4: the line is blank where the Content-Type belongs") == true)
    }

    @Test func anInvalidMethodPatternNamesLineOne() throws {
        let error = try parseError("GET(\n/a\n200\ntext/plain\n\n")
        #expect(
            error.map { "\($0)" }?.hasPrefix("\(file("bad.tail").path):1: the method pattern \"GET(\" is not a valid regular expression")
                == true)
    }

    @Test func anInvalidURLPatternNamesLineTwo() throws {
        let error = try parseError("GET\n/a[\n200\ntext/plain\n\n")
        #expect(
            error.map { "\($0)" }?.hasPrefix("\(file("bad.tail").path):2: the URL pattern \"/a[\" is not a valid regular expression")
                == true)
    }

    @Test func aStatusOutsideTheRangeNamesLineThree() throws {
        #expect(
            try parseError("GET\n/a\n99999\ntext/plain\n\n") == malformed(line: 3, "the status \"99999\" is not three digits in 100...599"))
    }

    @Test func aStatusThatIsNotANumberIsAnError() throws {
        #expect(try parseError("GET\n/a\nOK\ntext/plain\n\n") == malformed(line: 3, "the status \"OK\" is not three digits in 100...599"))
    }

    @Test func aHeaderLineWithoutAColonNamesItsLine() throws {
        #expect(
            try parseError("GET\n/a\n200\ntext/plain\n{\"id\": 1}\n")
                == malformed(
                    line: 5,
                    "\"{\"id\": 1}\" is not a header line (\"Name: value\"); if the body starts here, put one blank line before it"))
    }

    @Test func aSecondContentTypeNamesItsLine() throws {
        #expect(
            try parseError("GET\n/a\n200\ntext/plain\nX-A: 1\ncontent-type: text/html\n\n")
                == malformed(line: 6, "a second Content-Type (an earlier line gives one already): keep one of the two"))
    }

    @Test func aStrayCharacterInABase64BodyNamesItsLine() throws {
        #expect(
            try parseError("GET\n/a\n200\nimage/png;base64\n\nR0lG\nOD!h\n")
                == malformed(
                    line: 7,
                    "the body is marked base64 (the Content-Type ends in ;base64) but holds the byte 0x21, which base64 does not use"))
    }

    @Test func aBase64BodyOfBrokenGroupsIsAnError() throws {
        #expect(
            try parseError("GET\n/a\n200\nimage/png;base64\n\nR0lGO")
                == malformed(
                    line: 6,
                    "the base64 body does not decode: its 5 characters are not whole groups of four, or '=' padding is not at the end"))
    }

    @Test func aHeadThatIsNotUTF8NamesItsLine() throws {
        var bytes = Data("GET\n/a\n".utf8)
        bytes.append(contentsOf: [0xFF, 0xFE, 0x0A])
        try bytes.write(to: file("bad.tail"))
        #expect(throws: malformed(line: 3, "the line is not UTF-8 text")) { try MocktailFiles([folder.url]) }
    }

    @Test func aBodyThatIsNotUTF8IsKeptByteForByte() async throws {
        var bytes = Data("GET\n/a\n200\napplication/octet-stream\n\n".utf8)
        bytes.append(contentsOf: [0xFF, 0x00, 0xFE])
        try bytes.write(to: file("a.tail"))
        #expect(try await client().0.get(testURL("https://h/a")).body == Data([0xFF, 0x00, 0xFE]))
    }

    @Test func aMissingFolderIsAnError() {
        let missing = folder.url.appendingPathComponent("nope")
        #expect(throws: FixtureError.unreadable(file: missing.path, reason: "No such file or directory")) {
            try MocktailFiles([missing])
        }
    }

    @Test func aFolderWithNoTailFileIsAnError() throws {
        try folder.write("notes.txt", "")
        #expect(throws: FixtureError.noMocktailFiles(folder.url.path)) { try MocktailFiles([folder.url]) }
    }

    @Test func noLocationAtAllIsAnError() {
        #expect(throws: FixtureError.noMocktailFiles("MocktailFiles([])")) { try MocktailFiles([]) }
    }
}
