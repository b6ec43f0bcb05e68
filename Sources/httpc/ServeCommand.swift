import Foundation
import HTTPClient
import HTTPClientStubs

/// The parsed command line of `httpc serve`: the sources of answers and where to listen.
struct ServeCommand {
    /// A source of answers, as the command line names it.
    enum Source {
        case fixtures(String)
        case cassette(String)
        case har(String)
        case mocktails(String)

        /// The path given, to name the source in messages.
        var path: String {
            switch self {
            case .fixtures(let path), .cassette(let path), .har(let path), .mocktails(let path): path
            }
        }
    }

    /// The sources, in the order given: the first that answers a request answers it.
    var sources: [Source] = []
    var address: StubServer.Address = .loopback
    var port = 0
    /// `--max-connections`: the server's own bound when not given.
    var maximumConnections: Int?
    /// `--upstream`: where what no source answers goes.
    var upstream: URL?
    /// `--record`: the file forwarded exchanges are recorded to.
    var recordingFile: String?
    /// `--record-mode`: `HTTPCLIENT_RECORD_MODE`'s, or `once`, when not given.
    var recordMode: RecordMode?

    static let usage = """
        usage: httpc serve [--port N] [--host ADDRESS] [--max-connections N] [SOURCE...]
                           [--upstream URL [--record FILE [--record-mode MODE]]] [-h]

          SOURCE is one or more of (each repeatable; the first given that answers a request answers it):
              --fixtures DIR          a VOKMockData fixture folder (.json and .http files)
              --cassette FILE         a cassette: recorded against any host, it answers the same
                                      method, path and query sent to this server
              --har FILE              a HAR 1.2 archive, served as a cassette
              --mocktails PATH        a Mocktail (.tail) file, or a folder of them; their URL patterns
                                      are matched against http://HOST:PORT/path?query, HOST:PORT
                                      being what the request's Host line names
              --upstream URL          send what no source answers to URL (its path is this server's
                                      root) with the client's headers, and answer with what it answers;
                                      502 with the reason when it gives no answer, or a body over 64 MiB
              --record FILE           with --upstream: record each forwarded exchange to FILE, credentials
                                      redacted, the file complete after each one (HAR 1.2 when FILE ends
                                      in .har), and answer from FILE after the sources
              --record-mode MODE      with --record: once (the default: record when FILE does not exist,
                                      otherwise only replay it), new_episodes, all, or none (replay only,
                                      forward nothing); HTTPCLIENT_RECORD_MODE sets it too
              --port N                the port to listen on (0, the default: a free port)
              --host ADDRESS          the address to listen on: 127.0.0.1 (the default), ::1, or another
                                      address explicitly (0.0.0.0 serves every interface)
              --max-connections N     the most connections served at once; one more is answered
                                      503 and closed (default: 512, or, when the process may
                                      open fewer descriptors, half of what is left after 64,
                                      at least 8)
          -h, --help                  print this help

        Prints "serving SOURCES on http://HOST:PORT" once listening (listening on 0.0.0.0 or ::, "on every
        interface:" and the URL at each address of this machine, loopback last), then one line per request: the
        method, the path, the status, and which fixture, interaction or stub answered (replayed, recorded or
        forwarded), or why none did (credentials redacted). A request nothing answers gets a 404 with that report
        in its body. Ctrl-C (SIGINT) or SIGTERM stops the server and exits 0, the recording complete.

        Exit status: 0 once stopped, 2 for a usage error, 3 when a source or the recording cannot be loaded or the
        address cannot be listened on (nothing is served).
        """

    /// The command `arguments` (what follows `serve`) ask for, or `nil` when they ask for help.
    static func parse(_ arguments: [String]) throws(Command.UsageError) -> ServeCommand? {
        var command = ServeCommand()
        var given: Set<String> = []
        var index = 0
        func value(for option: String) throws(Command.UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw Command.UsageError(description: "\(option) needs a value") }
            return arguments[index]
        }
        func once(_ option: String) throws(Command.UsageError) {
            guard given.insert(option).inserted else { throw Command.UsageError(description: "\(option) is given twice; give it once") }
        }
        while index < arguments.count {
            let argument = arguments[index]
            defer { index += 1 }
            switch argument {
            case "-h", "--help":
                return nil
            case "--fixtures": command.sources.append(.fixtures(try value(for: argument)))
            case "--cassette": command.sources.append(.cassette(try value(for: argument)))
            case "--har": command.sources.append(.har(try value(for: argument)))
            case "--mocktails": command.sources.append(.mocktails(try value(for: argument)))
            case "--upstream":
                try once(argument)
                let text = try value(for: argument)
                guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
                    url.host?.isEmpty == false
                else {
                    throw Command.UsageError(
                        description: "--upstream: \"\(Redaction.standard.redacted(url: text).prefix(80))\" is not an http or https URL")
                }
                command.upstream = url
            case "--record":
                try once(argument)
                command.recordingFile = try value(for: argument)
            case "--record-mode":
                try once(argument)
                let name = try value(for: argument)
                guard let mode = RecordMode(name: name) else {
                    throw Command.UsageError(
                        description: "--record-mode: \"\(name.prefix(40))\" is not one of none, once, new_episodes, all")
                }
                command.recordMode = mode
            case "--port":
                try once(argument)
                let text = try value(for: argument)
                guard let port = Int(text), (0...65535).contains(port) else {
                    throw Command.UsageError(
                        description: "--port: \"\(text.prefix(40))\" is not a port number (0 to 65535; 0 picks a free one)")
                }
                command.port = port
            case "--host":
                try once(argument)
                command.address = try address(try value(for: argument))
            case "--max-connections":
                try once(argument)
                let text = try value(for: argument)
                guard let count = Int(text), count >= 1 else {
                    throw Command.UsageError(
                        description: "--max-connections: \"\(text.prefix(40))\" is not a number of connections (1 or more)")
                }
                command.maximumConnections = count
            case let other where other.hasPrefix("-"):
                throw Command.UsageError(description: "unknown option \(other) for httpc serve")
            default:
                throw Command.UsageError(
                    description: "httpc serve takes no argument \"\(argument.prefix(40))\": name a source with --fixtures, "
                        + "--cassette, --har, --mocktails or --upstream")
            }
        }
        guard command.recordingFile == nil || command.upstream != nil else {
            throw Command.UsageError(description: "--record needs --upstream: it records what is forwarded there")
        }
        guard command.recordMode == nil || command.recordingFile != nil else {
            throw Command.UsageError(description: "--record-mode needs --record")
        }
        guard !command.sources.isEmpty || command.upstream != nil else {
            throw Command.UsageError(
                description: "httpc serve needs a source: --fixtures DIR, --cassette FILE, --har FILE, --mocktails PATH or --upstream URL")
        }
        return command
    }

    /// The upstream the command names, with its recording in `mode` (for when `--record-mode` is not given).
    func upstream(mode fallback: RecordMode) -> StubServer.Upstream? {
        guard let upstream else { return nil }
        guard let recordingFile else { return StubServer.Upstream(upstream) }
        return StubServer.Upstream(upstream, recordingTo: URL(fileURLWithPath: recordingFile), mode: recordMode ?? fallback)
    }

    /// The address `--host` names; loopback under any of its usual spellings.
    private static func address(_ text: String) throws(Command.UsageError) -> StubServer.Address {
        switch text {
        case "127.0.0.1", "localhost": return .loopback
        case "::1", "[::1]": return .loopbackIPv6
        case "": throw Command.UsageError(description: "--host was given an empty address")
        default: return .custom(text)
        }
    }

    /// A source read and checked, ready to register.
    enum Loaded {
        case fixtures(FixtureFolder)
        case recording(Cassette, file: URL)
        case mocktails(MocktailFiles)
    }

    /// Every source read and checked, before anything listens: a broken one stops the command
    /// with nothing served.
    ///
    /// - Throws: the source's own error (``FixtureError``, ``CassetteError``), which names its file.
    func load() throws -> [Loaded] {
        try sources.map { source in
            let url = URL(fileURLWithPath: source.path)
            switch source {
            case .fixtures: return .fixtures(try FixtureFolder(directory: url))
            case .cassette: return .recording(try Cassette(contentsOf: url), file: url)
            case .har: return .recording(try Cassette(harContentsOf: url), file: url)
            case .mocktails: return .mocktails(try MocktailFiles([url]))
            }
        }
    }

    /// Registers `loaded` in `stubs`, for a server whose requests arrive at `base`. The first source
    /// given wins where several answer: the registry's newest stub wins, so they are registered last
    /// first.
    static func register(_ loaded: [Loaded], in stubs: StubRegistry, servedAt base: URL) {
        for source in loaded.reversed() {
            switch source {
            case .fixtures(let folder):
                stubs.serve(folder)
            case .recording(let cassette, let file):
                // Whatever address a client uses for this server, its request's URL has that host.
                var matching = CassetteMatching()
                matching.comparesOrigin = false
                stubs.replay(
                    cassette.served(at: base), matching: matching, redaction: .standard, replaysTiming: false, file: file,
                    firstInteraction: 0)
            case .mocktails(let files):
                stubs.serve(files)
            }
        }
    }

    /// What is served, for the first line printed: the sources, then the upstream and its recording.
    func summary(upstream: StubServer.Upstream?) -> String {
        var parts = sources.map(\.path)
        if let upstream {
            var forwarding = Redaction.standard.redacted(url: upstream.url.absoluteString)
            if let file = recordingFile { forwarding += " (recorded to \(file), record mode \(upstream.mode.rawValue))" }
            parts.append(forwarding)
        }
        return parts.joined(separator: ", ")
    }
}
