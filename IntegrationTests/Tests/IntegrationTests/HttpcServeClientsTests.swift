import Foundation
import Testing

/// The root package's folder (this package sits in it).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The executable `name` on the PATH, or `nil`.
func tool(_ name: String) -> URL? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }
}

/// A running `httpc serve` on the bundled fixtures, launched from the binary the root package
/// built: `HTTPC_BINARY` when set (`.ci/run` sets it), otherwise the root's `.build/debug/httpc`.
final class ServedFixtures: Sendable {
    let process: Process
    let baseURL: URL

    static var binary: URL {
        get throws {
            let binary =
                ProcessInfo.processInfo.environment["HTTPC_BINARY"].map { URL(fileURLWithPath: $0) }
                ?? packageRoot.appendingPathComponent(".build/debug/httpc")
            guard FileManager.default.isExecutableFile(atPath: binary.path) else {
                throw CocoaError(
                    .fileNoSuchFile,
                    userInfo: [
                        NSLocalizedDescriptionKey:
                            "no httpc at \(binary.path): build it first (swift build --product httpc in the root package) or set HTTPC_BINARY"
                    ])
            }
            return binary
        }
    }

    init() throws {
        let process = Process()
        process.executableURL = try Self.binary
        process.arguments = ["serve", "--port", "0", "--fixtures", "Examples/Fixtures"]
        process.currentDirectoryURL = packageRoot
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        // The first line names the port; the log lines after it are not read (the pipe's buffer
        // holds far more than these tests print).
        var first = Data()
        while !first.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            first.append(chunk)
        }
        let line = String(decoding: first, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let text = line.split(separator: " ").last, let url = URL(string: String(text)), url.port != nil else {
            process.terminate()
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "httpc serve printed \"\(line)\""])
        }
        self.process = process
        baseURL = url
    }

    /// Stops the server as Ctrl-C would; returns its exit status.
    func stop() -> Int32 {
        process.interrupt()
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}

/// Runs `executable` with `arguments`; returns what it printed on stdout and stderr.
func runTool(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    // No proxy: the loopback server is reached directly.
    process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.lowercased().hasSuffix("_proxy") }
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    // These tools write a few lines on stderr at most: reading stdout first cannot block them.
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
}

extension ServerSuites {
    /// Clients that are not Swift against `httpc serve`: the fixtures a Swift test uses answer
    /// curl and Python alike.
    @Suite("httpc serve answers curl and Python", .timeLimit(.minutes(1)))
    struct HttpcServeClientsTests {
        static let curl = tool("curl")
        static let python = tool("python3")

        @Test(.enabled(if: curl != nil, "curl is not installed (apt-get install curl); .ci/run installs it"))
        func curlGetsAFixtureWithItsHeaders() throws {
            let server = try ServedFixtures()
            let run = try runTool(try #require(Self.curl), ["-sS", "-i", server.baseURL.absoluteString + "/users/1"])
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(run.output.lowercased().contains("content-type: application/json\r\n"))
            #expect(run.output.contains("Ada Lovelace"))
            #expect(server.stop() == 0)
        }

        @Test(.enabled(if: curl != nil, "curl is not installed (apt-get install curl); .ci/run installs it"))
        func curlPostsJSONAndGetsTheFixtureForThatBody() throws {
            let server = try ServedFixtures()
            let run = try runTool(
                try #require(Self.curl),
                [
                    "-sS", "-i", "-H", "Content-Type: application/json", "--data", #"{"name":"Grace"}"#,
                    server.baseURL.absoluteString + "/users",
                ])
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.hasPrefix("HTTP/1.1 201 Created\r\n"))
            #expect(run.output.contains("Location: /users/4\r\n"))
            #expect(server.stop() == 0)
        }

        @Test(.enabled(if: curl != nil, "curl is not installed (apt-get install curl); .ci/run installs it"))
        func curlReusesOneKeptAliveConnectionForSeveralRequests() throws {
            let server = try ServedFixtures()
            let base = server.baseURL.absoluteString
            // %{num_connects}: the connections a transfer opened; 0 when it reused the previous one.
            let run = try runTool(
                try #require(Self.curl),
                [
                    "-sS", "-w", "%{http_code} %{num_connects}\n", "-o", "/dev/null", base + "/users/1", "-o", "/dev/null", base + "/users",
                    "-o", "/dev/null", base + "/users/99",
                ])
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output == "200 1\n200 0\n404 0\n")
            #expect(server.stop() == 0)
        }

        @Test(.enabled(if: curl != nil, "curl is not installed (apt-get install curl); .ci/run installs it"))
        func curlGetsA404WhoseBodySaysWhatWasTried() throws {
            let server = try ServedFixtures()
            let run = try runTool(try #require(Self.curl), ["-sS", "-i", server.baseURL.absoluteString + "/users/7"])
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.hasPrefix("HTTP/1.1 404 "))
            #expect(run.output.contains("GET|-users-7.json"))
            #expect(server.stop() == 0)
        }

        /// Python's standard `http.client`, one connection for every request: keep-alive,
        /// a body sent with Content-Length and one sent chunked.
        static let pythonClient = #"""
            import http.client, json, sys
            host, port = sys.argv[1], int(sys.argv[2])
            connection = http.client.HTTPConnection(host, port, timeout=10)
            connection.request("GET", "/users/1")
            response = connection.getresponse()
            print(response.status, json.loads(response.read())["name"])
            connection.request("POST", "/users", body=b'{"name":"Grace"}', headers={"Content-Type": "application/json"})
            response = connection.getresponse()
            print(response.status, response.getheader("Location"), response.read().decode().strip())
            connection.request("POST", "/users", body=iter([b'{"name":', b'"Grace"}']), headers={"Content-Type": "application/json"}, encode_chunked=True)
            response = connection.getresponse()
            print(response.status, response.getheader("Location"), len(response.read()) > 0)
            connection.request("GET", "/users?page=2")
            response = connection.getresponse()
            print(response.status, len(response.read()) > 0)
            connection.close()
            """#

        @Test(.enabled(if: python != nil, "python3 is not installed (apt-get install python3); .ci/run installs it"))
        func pythonsHTTPClientSendsSeveralRequestsOnOneConnection() throws {
            let server = try ServedFixtures()
            let host = try #require(server.baseURL.host)
            let port = try #require(server.baseURL.port)
            let run = try runTool(try #require(Self.python), ["-c", Self.pythonClient, host, String(port)])
            #expect(run.status == 0, "\(run.errors)")
            #expect(
                run.output == """
                    200 Ada Lovelace
                    201 /users/4 {"id": 4, "name": "Grace"}
                    201 /users/4 True
                    200 True

                    """)
            #expect(server.stop() == 0)
        }
    }
}
