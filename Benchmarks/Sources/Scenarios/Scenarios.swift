import Foundation
import HTTPClient
import HTTPClientStubs
import LoopbackServer

/// Every measured operation, written once. Each `make...` prepares a scenario and returns the
/// operation to time; the operation does one unit of work (one request, one match, one parse).
public enum Scenarios {
    /// A URL that cannot fail to parse: the literal is checked once, at start.
    public static func fixedURL(_ text: String) -> URL {
        guard let url = URL(string: text) else { preconditionFailure("invalid benchmark URL \(text)") }
        return url
    }

    // MARK: 1-2. The mocked round trip and its floor

    /// `HTTPClient.get` through `MockURLSession`: completes inside the call.
    public static func mockedGet() -> () -> Void {
        let session = MockURLSession()
        let client = HTTPClient(session: session)
        let target = fixedURL("https://api.example.com/users/1")
        var calls = 0
        return {
            client.get(url: target) { result in
                if case .failure = result { preconditionFailure("the mocked GET failed") }
            }
            calls += 1
            // The session records every request; forget them now and then so memory stays flat.
            if calls % 10_000 == 0 { session.removeAllRecords() }
        }
    }

    /// The floor: what any mocked round trip must do at least: a URLRequest, an
    /// HTTPURLResponse, and a closure call.
    public static func floor() -> () -> Void {
        let target = fixedURL("https://api.example.com/users/1")
        let deliver: (HTTPURLResponse?) -> Void = { response in
            if response == nil { preconditionFailure("no response") }
        }
        return {
            let request = URLRequest(url: target)
            deliver(HTTPURLResponse(url: request.url ?? target, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:]))
        }
    }

    /// One data task on an in-process session, answered inside `resume()` (`MockURLSession` and
    /// `HandWrittenMock` both answer there).
    public static func inProcessRequest(_ session: any URLSessionProtocol, _ request: URLRequest) {
        session.makeDataTask(with: request) { _, response, _ in
            if response == nil { preconditionFailure("no response for \(request)") }
        }.resume()
    }

    /// What the code under test does in the peer table's in-process rows: `HTTPClient`'s completion
    /// `get(url:headers:completion:)` (`post(url:body:headers:completion:)` for a POST) on a
    /// client made with `session`, with the request's URL, headers and body. The completion
    /// style, because with an in-process session it completes inside the call, so a request is
    /// timed whole with no `Task` hop; the same call drives both sides of a ratio.
    /// - Parameters:
    ///   - session: `MockURLSession` or `HandWrittenMock`.
    ///   - request: The cell's request; its URL, headers, method and body are what the call sends.
    /// - Returns: One call, failing loudly if the client reports an error (an unmatched stub).
    public static func clientCall(_ session: any URLSessionProtocol, _ request: URLRequest) -> () -> Void {
        let client = HTTPClient(session: session)
        guard let url = request.url else { preconditionFailure("no URL in \(request)") }
        let headers = HTTPHeaders(request.allHTTPHeaderFields ?? [:])
        let body = request.httpBody
        let completion: @Sendable (Result<HTTPClient.Response<Data>, HTTPClientError>) -> Void = { result in
            if case .failure(let error) = result { preconditionFailure("\(url): \(error)") }
        }
        if request.httpMethod == "POST" {
            return { client.post(url: url, body: body, headers: headers, completion: completion) }
        }
        return { client.get(url: url, headers: headers, completion: completion) }
    }

    // MARK: 3-4. Through Foundation's loading path

    /// A raw URLSession whose only protocol is a minimal canned URLProtocol.
    public static func cannedURLProtocolSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [CannedURLProtocol.self]
        return URLSession(configuration: configuration)
    }

    /// One request on a raw session, awaited.
    public static func rawGet(_ session: URLSession, _ url: URL) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            session.dataTask(with: url) { _, response, _ in
                if response == nil { preconditionFailure("no response from \(url)") }
                continuation.resume()
            }.resume()
        }
    }

    /// One request on a raw session made from a `URLRequest` (as `HTTPClient` does), awaited.
    public static func rawGet(_ session: URLSession, _ request: URLRequest) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            session.dataTask(with: request) { _, response, _ in
                if response == nil { preconditionFailure("no response from \(request)") }
                continuation.resume()
            }.resume()
        }
    }

    /// `HTTPClient.get` through the stub engine's URLProtocol on the same kind of session. The
    /// stub answers exactly what `CannedURLProtocol` does (200, "ok", no headers): corelibs
    /// alone spends ~17 µs on a `Content-Type` with a charset, which would blur the comparison.
    public static func stubbedURLProtocolClient() -> (HTTPClient, StubRegistry) {
        let stubs = StubRegistry("benchmark", reporting: .disabled)
        stubs.stub(.get, "/users/1").respond(.status(200, body: Data("ok".utf8)))
        return (HTTPClient(session: stubs.makeURLSession()), stubs)
    }

    // MARK: 5. Matching with 10,000 stubs

    /// A registry of 10,000 stubs, exact (`/items/N`) or templates (`/itemsN/{id}`), and a
    /// request that matches the last one registered... and one that matches the first.
    public static func registryWithTenThousandStubs(templates: Bool) -> (StubRegistry, RecordedRequest, RecordedRequest) {
        let stubs = StubRegistry("10k", reporting: .disabled)
        for index in 0..<10_000 {
            stubs.stub(.get, templates ? "/items\(index)/{id}" : "/items/\(index)").respond(.status(200))
        }
        let path = { (index: Int) in templates ? "/items\(index)/42" : "/items/\(index)" }
        func request(_ index: Int) -> RecordedRequest {
            RecordedRequest(URLRequest(url: fixedURL("https://api.example.com" + path(index))))
        }
        return (stubs, request(9_999), request(0))
    }

    /// `count` stubs for one path differing only by query (`/items?page=N&size=20`), and requests
    /// for the first and the last registered.
    public static func queryVariants(_ count: Int) -> (stubs: StubRegistry, first: RecordedRequest, last: RecordedRequest) {
        let stubs = StubRegistry("query variants", reporting: .disabled)
        for page in 0..<count { stubs.stub(.get, "https://api.example.com/items?page=\(page)&size=20").respond(.status(200)) }
        func request(_ page: Int) -> RecordedRequest {
            RecordedRequest(URLRequest(url: fixedURL("https://api.example.com/items?size=20&page=\(page)")))
        }
        return (stubs, request(0), request(count - 1))
    }

    // MARK: 8. Files

    /// A `.http` file with a body of `bodySize` bytes.
    /// Writes `size` bytes of the loopback server's pattern to `file`, 1 MiB at a time.
    public static func writePatternFile(_ file: URL, size: Int) throws {
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        let megabyte = Data((0..<(1 << 20)).map(patternByte))
        var written = 0
        while written < size {
            let count = min(megabyte.count, size - written)
            try handle.write(contentsOf: megabyte.prefix(count))
            written += count
        }
    }

    public static func httpFile(bodySize: Int) -> Data {
        var data = Data("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nX-Trace: bench\r\n\r\n".utf8)
        data.append(Data(repeating: 0x61, count: bodySize))
        return data
    }

    /// A fixture folder of `count` `.json` files, `GET|-items-N.json`.
    public static func fixtureFolder(files count: Int) throws -> FixtureFolder {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-fixtures-\(count)", isDirectory: true)
        if !FileManager.default.fileExists(atPath: directory.appendingPathComponent("GET|-items-\(count - 1).json").path) {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for index in 0..<count {
                try Data(#"{"id": \#(index)}"#.utf8).write(to: directory.appendingPathComponent("GET|-items-\(index).json"))
            }
        }
        return try FixtureFolder(directory: directory)
    }

    /// A cassette file of `count` interactions.
    public static func cassetteFile(interactions count: Int) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bench-cassette-\(count).json")
        if !FileManager.default.fileExists(atPath: file.path) {
            // Written as the cassette format is (the model types are the engine's own).
            let interactions = (0..<count).map { index in
                #"{"duration": 0.01, "recordedAt": "2026-01-01T00:00:00Z", "request": {"method": "GET", "#
                    + #""url": "https://api.example.com/items/\#(index)?page=\#(index % 7)", "headers": [["Accept", "application/json"]]}, "#
                    + #""response": {"status": 200, "headers": [["Content-Type", "application/json"]], "#
                    + #""body": {"text": "{\"id\": \#(index), \"name\": \"item \#(index)\"}"}}}"#
            }
            let json = #"{"version": 1, "interactions": ["# + interactions.joined(separator: ",") + "]}"
            try Cassette(data: Data(json.utf8), file: file.path).write(to: file)
        }
        return file
    }
}

/// The minimal canned URLProtocol: 200 and two bytes for every request.
final class CannedURLProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let url = request.url,
            let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil)
        else { return }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: Data("ok".utf8))
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}
