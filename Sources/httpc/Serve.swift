import Dispatch
import Foundation
import HTTPClient
import HTTPClientStubs

/// `httpc serve`: the stub engine as a mock API server for people and for other languages' clients.
enum Serve {
    /// Parses `arguments` (what follows `serve`), serves until SIGINT or SIGTERM, and exits.
    static func run(_ arguments: [String]) -> Never {
        let command: ServeCommand
        do {
            guard let parsed = try ServeCommand.parse(arguments) else {
                print(ServeCommand.usage)
                exit(0)
            }
            command = parsed
        } catch {
            fail("\(error)\n\(ServeCommand.usage)", status: 2)
        }
        let loaded: [ServeCommand.Loaded]
        do {
            loaded = try command.load()
        } catch {
            fail("\(error)", status: 3)
        }
        let upstream: StubServer.Upstream?
        do {
            // The environment's mode is read only when it is the one used: a typo there is no error otherwise.
            let fallback =
                command.recordingFile != nil && command.recordMode == nil ? try RecordMode.fromEnvironment(default: .once) : .once
            upstream = command.upstream(mode: fallback)
        } catch {
            fail("\(error)", status: 2)
        }
        // People read the report in the 404's body and the log line; no test owns this registry.
        let stubs = StubRegistry("httpc serve", reporting: .disabled)
        // Nothing verifies or reads this registry's logs (the requests, the unmatched reports,
        // each source's calls): each keeps the latest hundred requests and at most 4 MiB of them
        // (bodies and heads), however long it runs and whatever its clients send.
        stubs.retainedRequests = 100
        stubs.retainedRequestBytes = 4 << 20
        var configuration = StubServer.Configuration()
        configuration.address = command.address
        configuration.port = command.port
        if let maximum = command.maximumConnections { configuration.maximumConnections = maximum }
        // Recorded exchanges answer after the sources: they are registered first, as the server starts.
        configuration.upstream = upstream
        let logLines = LogLines()
        configuration.log = { entry in
            let dropped = entry.droppedBefore > 0 ? "(\(entry.droppedBefore) log lines dropped: the log fell behind)\n" : ""
            logLines.add("\(dropped)\(entry)\n")
        }
        let server: StubServer
        do {
            server = try StubServer(stubs, configuration: configuration)
        } catch {
            fail("\(error)", status: 3)
        }
        // Registered once the port is known: a cassette answers at this server's URL. Nothing
        // announced the port yet, so no request has been answered without them.
        ServeCommand.register(loaded, in: stubs, servedAt: server.baseURL)

        // A signal ends the process only once the server has closed its connections and port.
        let signals = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler {
                server.stop()
                exit(0)
            }
            source.resume()
            return source
        }
        let trimming = FreedMemory.givenBackEvery(seconds: 10)
        // Written straight to the descriptor: a script reading a pipe learns the port at once.
        write("serving \(command.summary(upstream: upstream)) on \(reachableAt(server))\n")
        withExtendedLifetime((signals, trimming)) { dispatchMain() }
    }

    /// Where clients reach `server`: its base URL, or, listening on every interface, the URL at
    /// each address of this machine (loopback last, so the line's last word is a URL that works here).
    private static func reachableAt(_ server: StubServer) -> String {
        guard let host = server.baseURL.host?.trimmingCharacters(in: CharacterSet(charactersIn: "[]")),
            let family = InterfaceAddresses.wildcardFamily(of: host)
        else { return server.baseURL.absoluteString }
        let urls = InterfaceAddresses.urls(family: family, port: server.port)
        return urls.isEmpty ? server.baseURL.absoluteString : "every interface: " + urls.joined(separator: " ")
    }

    /// Writes `line` to the standard output unbuffered, in one call (log lines from several
    /// connections never interleave).
    fileprivate static func write(_ line: String) {
        FileHandle.standardOutput.write(Data(line.utf8))
    }
}

/// The log, written on a queue of its own: a standard output that nobody reads blocks the
/// writes, and must not block the answers. Past 1,000 lines or 4 MiB not yet written, lines are
/// dropped and counted, and the count is written when the output moves again.
private final class LogLines: Sendable {
    private let relay = BoundedRelay(label: "httpc serve log", maximumWaiting: 1_000, maximumWaitingBytes: 4 << 20)

    func add(_ line: String) {
        relay.send(bytes: line.utf8.count) { dropped in
            if dropped > 0 { Serve.write("(\(dropped) log lines dropped: the output was not being read)\n") }
            Serve.write(line)
        }
    }
}
