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
        // People read the report in the 404's body and the log line; no test owns this registry.
        let stubs = StubRegistry("httpc serve", reporting: .disabled)
        var configuration = StubServer.Configuration()
        configuration.address = command.address
        configuration.port = command.port
        configuration.log = { entry in write("\(entry)\n") }
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
        // Written straight to the descriptor: a script reading a pipe learns the port at once.
        write("serving \(command.summary) on \(server.baseURL.absoluteString)\n")
        withExtendedLifetime(signals) { dispatchMain() }
    }

    /// Writes `line` to the standard output unbuffered, in one call (log lines from several
    /// connections never interleave).
    private static func write(_ line: String) {
        FileHandle.standardOutput.write(Data(line.utf8))
    }
}
