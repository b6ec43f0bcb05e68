import Foundation
import HTTPClient
@_spi(Engine) import HTTPClientStubs

/// What is fuzzed. Each target must never crash, hang or grow without bound on any input,
/// and checks a property that would catch a wrong answer, not only a crash.
enum Targets {
    static let all: [String: @Sendable (Data) -> Void] = [
        "http": http, "cassette": cassette, "har": har, "naming": naming, "redaction": redaction, "json": json,
        "retry-after": retryAfter, "sse": serverSentEvents,
        "cookies": cookies,
        "query-form": queryAndForm,
        "mocktail": mocktail,
        "http-request": httpRequest,
    ]

    /// Stops the run with a message libFuzzer saves beside the input that caused it.
    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("property violated: \(message)\n".utf8))
        abort()
    }

    // MARK: Files

    /// The `.http` parser: what it accepts has a real status and token header names.
    static func http(_ data: Data) {
        guard let file = try? HTTPResponseFile(parsing: data, file: "fuzz.http") else { return }
        if !(100...599).contains(file.statusCode) { fail("status \(file.statusCode) accepted") }
        for field in file.headers where field.name.isEmpty || field.name.contains(" ") || field.name.contains(":") {
            fail("header name \"\(field.name)\" accepted")
        }
    }

    /// Cassettes: what loads is valid, and survives being written (bodies streamed) and read.
    static func cassette(_ data: Data) {
        guard let cassette = try? Cassette(data: data, file: "fuzz.json") else { return }
        do {
            try cassette.write(to: scratchFile)
            let again = try Cassette(contentsOf: scratchFile)
            if again != cassette { fail("a cassette changed when written and read back") }
        } catch {
            fail("a loaded cassette could not be written and read back: \(error)")
        }
    }

    /// HAR import: no crash; what it imports is valid.
    static func har(_ data: Data) {
        guard let cassette = try? Cassette(harData: data, file: "fuzz.har") else { return }
        do {
            try cassette.write(to: scratchFile)
            _ = try Cassette(contentsOf: scratchFile)  // reading validates every interaction
        } catch {
            fail("an imported HAR is not a valid cassette: \(error)")
        }
    }

    static let scratchFile = FileManager.default.temporaryDirectory.appendingPathComponent("httpclient-fuzz-\(getpid()).json")

    /// `Retry-After`, as a server sends it on a 503: a delay that is finite and not negative, or
    /// none. (The parser is internal to the client: it is reached through a retried request, the
    /// delay read from the scheduler that waited it, waited for here as libFuzzer calls the
    /// target synchronously.)
    static func retryAfter(_ data: Data) {
        let value = String(decoding: data, as: UTF8.self)
        let session = MockURLSession()
        session.enqueue(.status(503, headers: ["Retry-After": value]), .status(200))
        let scheduler = ImmediateScheduler(now: Date(timeIntervalSince1970: 1_800_000_000))
        let client = HTTPClient(
            session: session, retryPolicy: RetryPolicy(maximumAttempts: 2, jitter: 0), scheduler: scheduler)
        let done = DispatchSemaphore(value: 0)
        Task {
            defer { done.signal() }
            _ = try? await client.send(.get("https://fuzz.example/busy"))
        }
        done.wait()
        for delay in scheduler.delays where !(delay.isFinite && delay >= 0) {
            fail("Retry-After \(value.debugDescription) gave the delay \(delay)")
        }
    }

    // MARK: Streams

    /// The event-stream parser: the first byte says where to cut the rest in two; the events
    /// (or the error) must be the same as from the whole, and as from one byte at a time.
    static func serverSentEvents(_ data: Data) {
        guard let first = data.first else { return }
        let stream = Array(data.dropFirst())
        let cut = stream.isEmpty ? 0 : Int(first) % (stream.count + 1)
        // Through the public path, `serverSentEvents()` on a sequence of chunks, waited for here:
        // libFuzzer calls the target synchronously.
        func parse(_ chunks: [ArraySlice<UInt8>]) -> Result<[ServerSentEvent], ServerSentEventError> {
            final class Outcome: @unchecked Sendable {
                var result: Result<[ServerSentEvent], ServerSentEventError> = .success([])
            }
            let outcome = Outcome()
            let done = DispatchSemaphore(value: 0)
            let body = AsyncStream<Data> { continuation in
                for chunk in chunks { continuation.yield(Data(chunk)) }
                continuation.finish()
            }
            Task {
                defer { done.signal() }
                var events: [ServerSentEvent] = []
                do {
                    for try await event in body.serverSentEvents(maximumEventSize: 64) { events.append(event) }
                    outcome.result = .success(events)
                } catch let error as ServerSentEventError {
                    outcome.result = .failure(error)
                } catch {
                    fail("the event stream threw \(error), not a ServerSentEventError")
                }
            }
            done.wait()
            return outcome.result
        }
        let whole = parse([stream[...]])
        let halves = parse([stream[..<cut], stream[cut...]])
        let bytes = parse(stream.indices.map { stream[$0...$0] })
        if whole != halves || whole != bytes {
            fail("the stream parsed differently when cut at \(cut): \(whole) / \(halves) / \(bytes)")
        }
        // The limit counts bytes received; each invalid byte decodes to U+FFFD (3 bytes).
        if case .success(let events) = whole, events.contains(where: { $0.data.utf8.count > 3 * 64 }) {
            fail("an event passed the size limit")
        }
    }

    // MARK: JSON and names

    /// The JSON parser: what it accepts prints as JSON that parses back equal. And
    /// `.jsonBody(containing:)`, which walks the body's bytes the first time and looks into the
    /// parsed tree the second, answers as the tree does: for the input as its own expectation,
    /// and, when the input holds a zero byte, for the text before it as the expectation of the
    /// body after it.
    static func json(_ data: Data) {
        if let zero = data.firstIndex(of: 0), let expected = try? JSONValue(parsing: data[..<zero]) {
            checkContainment(of: expected, in: data[data.index(after: zero)...])
        }
        guard let value = try? JSONValue(parsing: data) else { return }
        checkContainment(of: value, in: data)
        guard let again = try? JSONValue(parsing: Data(value.description.utf8)) else { fail("\(value) does not parse back") }
        if again != value { fail("\(value) parses back as \(again)") }
    }

    private static func checkContainment(of expected: JSONValue, in body: Data) {
        var sent = URLRequest(url: URL(fileURLWithPath: "/"))
        sent.httpMethod = "POST"
        sent.httpBody = Data(body)
        let request = RecordedRequest(sent)
        let matcher = RequestMatcher.jsonBody(containing: expected)
        let truth = (try? JSONValue(parsing: Data(body)))?.contains(expected) == true
        let (walked, parsed) = (matcher.matches(request), matcher.matches(request))
        if walked != truth || parsed != truth {
            fail("containing \(expected): walked \(walked), parsed \(parsed), the tree says \(truth)")
        }
    }

    /// Folders whose file names for a request the naming target checks; naming reads no file,
    /// so any existing folder serves.
    static let folder = try? FixtureFolder(directory: FileManager.default.temporaryDirectory)
    static let folderWithWildcards = try? FixtureFolder(directory: FileManager.default.temporaryDirectory, wildcards: true)

    /// Fixture naming: method, then path and query, then (after a zero byte) the body. Every
    /// name fits a file system and holds no path separator.
    static func naming(_ data: Data) {
        guard let first = data.first else { return }
        let methods = ["GET", "POST", "PUT", "PATCH", "DELETE"]
        let rest = data.dropFirst()
        let split = rest.firstIndex(of: 0) ?? rest.endIndex
        let target = String(decoding: rest[..<split], as: UTF8.self).addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? ""
        guard let url = URL(string: "https://fuzz.example/" + target) else { return }
        var request = URLRequest(url: url)
        request.httpMethod = methods[Int(first) % methods.count]
        request.setValue(first & 0x80 == 0 ? "application/json" : "application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = split < rest.endIndex ? Data(rest[rest.index(after: split)...]) : nil
        let folder = first & 0x40 != 0 ? folderWithWildcards : folder
        for name in folder?.fileNames(for: RecordedRequest(request)) ?? [] {
            // 255: the longest file name the usual file systems allow, extension included.
            if name.utf8.count > 255 { fail("a name of \(name.utf8.count) bytes") }
            // By byte: a combining mark makes `/` part of a larger `Character`, which
            // `contains("/")` does not see.
            if name.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: ":") }) {
                fail("a name with a path separator: \(name)")
            }
            if !name.hasPrefix(request.httpMethod ?? "") { fail("a name without its method: \(name)") }
        }
    }

    /// Query and form text, hostile (percent signs, `+`, `=` inside values, `&&`, repeats):
    /// the items read from a request are exactly the items that request has, whichever way
    /// round they are listed, and no item-for-item different list matches it.
    static func queryAndForm(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        let query = text.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? ""
        guard let url = URL(string: "https://fuzz.example/p?" + query) else { return }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = data
        let recorded = RecordedRequest(request)
        let (queryItems, formItems) = (recorded.queryItems, recorded.formItems)
        if !RequestMatcher.queryExactly(queryItems.reversed()).matches(recorded) { fail("the query's own items do not match it") }
        if !RequestMatcher.formBodyExactly(formItems.reversed()).matches(recorded) { fail("the form's own fields do not match it") }
        if !RequestMatcher.query(queryItems).matches(recorded) { fail("the query does not contain its own items") }
        if let first = queryItems.first {
            // A bare name for an empty value, or the reverse: a different query.
            let flipped = URLQueryItem(name: first.name, value: first.value == nil ? "" : nil)
            let changed = [flipped] + queryItems.dropFirst()
            if first.value?.isEmpty != false, RequestMatcher.queryExactly(changed).matches(recorded) {
                fail("a bare name and an empty value were not told apart in \(query)")
            }
        }
    }
}
