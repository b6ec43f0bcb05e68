import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@testable import HTTPClientStubs

/// `httpc serve --upstream URL --record FILE`, run as its users run it, against upstreams and
/// record files that do not play along, and killed while it records.
@Suite("httpc serve recording through a hostile upstream")
struct HttpcServeRecordingHostileTests {
    let folder: TemporaryFolder
    let api = StubRegistry("the real API", reporting: .disabled)
    let apiServer: StubServer

    init() throws {
        folder = try TemporaryFolder()
        apiServer = try StubServer(api)
    }

    /// `httpc serve --port 0 arguments...` in the folder, and the port of its first line.
    private func serve(_ arguments: [String]) throws -> (LaunchedProcess, Int) {
        let server = try HttpcServeTests.Server(arguments, in: folder.url)
        return (server.launched, server.port)
    }

    private func get(_ path: String, port: Int, headers: String = "") async throws -> RawConnection.Response {
        try await offThePool { try RawConnection.get(path, port: port, headers: headers, readTimeout: 60) }
    }

    @Test func aHARRecordingHoldsNoSecretOfTheClientOrTheUpstream() async throws {
        api.stub(.get, "/me").respond(
            .status(
                200, headers: ["Set-Cookie": "session=cookieSECRET4242; Path=/", "Content-Type": "application/json"],
                body: Data(#"{"name": "Ada", "access_token": "bodySECRET8181"}"#.utf8)))
        let (launched, port) = try serve(["--upstream", apiServer.baseURL.absoluteString, "--record", "api.har"])

        let answer = try await get("/me?api_key=querySECRET9191", port: port, headers: "Authorization: Bearer clientSECRET1010\r\n")
        launched.signal(SIGTERM)
        #expect(launched.finish().status == 0)

        #expect(answer.status == 200)
        let file = folder.url.appendingPathComponent("api.har")
        let written = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        for secret in ["cookieSECRET4242", "bodySECRET8181", "querySECRET9191", "clientSECRET1010"] {
            #expect(!written.contains(secret), "\(secret) was written")
        }
        #expect(try Cassette(harContentsOf: file).interactions.count == 1)
    }

    @Test func killedWhileRecordingManyExchangesItLeavesAFileThatReadsBack() async throws {
        let gate = HeldResponse()
        api.stub(.get, "/item/{id}").respond(.computed { request in .text(request.pathParameters["id"] ?? "") })
        api.stub(.get, "/held").respond(.text("held").held(by: gate))
        defer { gate.release() }
        let (launched, port) = try serve(["--upstream", apiServer.baseURL.absoluteString, "--record", "api.json"])

        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<24 { group.addTask { _ = try await self.get("/item/\(index)", port: port) } }
            try await group.waitForAll()
        }
        let held = try RawConnection(port: port, readTimeout: 5)
        held.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
        // Should the forwarded request never reach the upstream's held stub, the failure says
        // what httpc serve answered it and what it logged.
        do {
            try await gate.waitUntilHolding(timeout: eventWait)
        } catch {
            let answer = (try? held.readResponse()).map { "\($0.status) \($0.text)" } ?? "nothing within 5 s"
            launched.signal(SIGKILL)
            let log = String(decoding: launched.finish().output, as: UTF8.self)
            Issue.record("\(error)\nhttpc serve answered the held request: \(answer)\nits log:\n\(log)")
            return
        }
        launched.signal(SIGKILL)
        _ = launched.finish()

        let recorded = try Cassette(contentsOf: folder.url.appendingPathComponent("api.json"))
        #expect(recorded.interactions.count == 24)
    }

    /// Runs `httpc serve --port 0 arguments...` in the folder to its end: its exit status and
    /// what it wrote on stderr. A server still running after a generous failsafe wait (the
    /// finding) is freed from a FIFO it may wait on and terminated, ending the wait.
    private func runServe(_ arguments: [String], freeing fifo: URL? = nil) async throws -> (status: Int32, errors: String) {
        let binary = try HttpcTests.binary
        let directory = folder.url
        return try await offThePool {
            let process = try LaunchedProcess(binary, ["serve", "--port", "0"] + arguments, in: directory, output: .discarded)
            let pid = process.identifier
            let exited = Locked(false)
            DispatchQueue.global().asyncAfter(deadline: .now() + 30) {
                guard !exited.current else { return }
                if let fifo {
                    let writer = open(fifo.path, O_WRONLY | O_NONBLOCK)
                    if writer >= 0 { close(writer) }
                }
                kill(pid, SIGKILL)
            }
            let run = process.finish()
            exited.withLock { $0 = true }
            return (run.status, run.errors)
        }
    }

    @Test func aRecordFileThatIsADirectoryExits3NamingIt() async throws {
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("api.json"), withIntermediateDirectories: true)

        let outcome = try await runServe(["--upstream", apiServer.baseURL.absoluteString, "--record", "api.json"])

        #expect(outcome.status == 3, "\(outcome)")
        #expect(outcome.errors.contains("api.json"))
    }

    @Test func aRecordFileThatIsAFIFOIsRefusedWithoutWaitingForAWriter() async throws {
        let fifo = folder.url.appendingPathComponent("api.json")
        guard mkfifo(fifo.path, 0o600) == 0 else { throw POSIXError(.EIO) }

        let outcome = try await runServe(["--upstream", apiServer.baseURL.absoluteString, "--record", "api.json"], freeing: fifo)

        #expect(outcome.status == 3, "\(outcome)")
        #expect(outcome.errors.contains("api.json"))
    }

    /// `--upstream` naming the server's own address: the forwarded request comes back carrying
    /// the server's own Via line, and is answered 508 (Loop Detected) at once, nothing recorded.
    @Test func anUpstreamThatIsTheServerItselfIsAnsweredAtOnceNotLooped() async throws {
        let port = try Self.freePort()
        let launched = try LaunchedProcess(
            try HttpcTests.binary, ["serve", "--port", "\(port)", "--upstream", "http://127.0.0.1:\(port)", "--record", "api.json"],
            in: folder.url)
        _ = launched.nextLine()

        // The read timeout is a failsafe: the loop is caught on its first way round.
        let answer = try await offThePool {
            let connection = try RawConnection(port: port, readTimeout: 30)
            connection.send("GET /loop HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(answer.status == 508)
        #expect(String(decoding: answer.body, as: UTF8.self).contains("came back to the server that forwarded it"))
        launched.signal(SIGKILL)
        _ = launched.finish()
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("api.json").path))
    }

    /// A port nothing listens on now.
    static func freePort() throws -> Int {
        let probe = try StubServer(StubRegistry(reporting: .disabled))
        defer { probe.stop() }
        return probe.port
    }
}
