import Foundation
import HTTPClient
import HTTPClientStubs

/// The parsed command line of `httpc`.
struct Command {
    var method: HTTPMethod?
    var url: URL
    var options: Options

    static let usage = """
        usage: httpc [METHOD] URL [-H 'Name: value']... [-d DATA | --json JSON | -T FILE] [-i] [-o FILE | --stream]
                     [--fixtures DIR | --cassette FILE [--record-mode MODE]] [-h] [--]
               httpc serve [--port N] [--host ADDRESS] [--fixtures DIR | --cassette FILE | --har FILE | --mocktails PATH]...
                           [--upstream URL [--record FILE [--record-mode MODE]]]

          METHOD                      GET, POST, PUT... (an HTTP token); default GET, or POST with a body
          -H, --header 'Name: value'  add a request header (repeatable)
          -d, --data DATA             send DATA as the body (@FILE reads a file); default method POST
              --json JSON             send JSON with Content-Type and Accept application/json
          -T, --upload-file FILE      send FILE, a regular file read as it is sent, as the body; default
                                      method PUT (not a folder, a pipe or a device; - is not supported)
          -i, --include               print the response headers
          -o, --output FILE           write the body to FILE (a progress bar on stderr when it is a terminal):
                                      a new file, or a regular file it replaces once the body is complete;
                                      for a folder, a new file in it named from the URL's last path segment
                                      (never replacing a file of that name)
              --stream                print the body as it arrives (server-sent events, logs)
              --fixtures DIR          answer from a VOKMockData fixture folder (offline)
              --cassette FILE         answer from a cassette
              --record-mode MODE      with --cassette: none (replay only, the default), once,
                                      new_episodes or all
          -h, --help                  print this help
              --                      end of options: what follows is METHOD and URL
          serve                       answer requests on a local port from fixtures, cassettes, HAR or Mocktail
                                      files, or an upstream it records, instead (see httpc serve -h)

        An option's value is the next argument, even when it starts with "-". An option with a
        value is given once (-H excepted), and options that contradict each other (-T with -d,
        --json, -o or --stream; -o with --stream; --fixtures with --cassette) are refused.
        Without --fixtures or --cassette, HTTPCLIENT_FIXTURES or HTTPCLIENT_CASSETTE in the
        environment choose the answers; otherwise the request goes to the network.

        Exit status: 0 for a 2xx response (or --help), 1 for another status, 2 for a usage error
        or a file that -o, -T or -d @ cannot use (nothing is sent), 3 when no response came (a
        network error, a missing or broken fixture or cassette, or nothing that answers the
        request), 4 when the response started but did not complete (the body was cut short or
        could not be written; the message says what arrived), 130 when interrupted (Ctrl-C
        cancels the transfer and says what had arrived).
        """

    /// A usage error: what was wrong with the command line.
    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    /// The command `arguments` ask for, or `nil` when they ask for help.
    static func parse(_ arguments: [String]) throws(UsageError) -> Command? {
        var options = Options()
        var positional: [String] = []
        var index = 0
        func value(for option: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(description: "\(option) needs a value") }
            return arguments[index]
        }
        // An option given twice would silently win (or lose): refused, as `role` names it.
        func once(_ role: Options.Role, _ argument: String) throws(UsageError) {
            if let first = options.given[role] {
                throw UsageError(
                    description: first == argument ? "\(argument) is given twice; give it once" : "use \(first) or \(argument), not both")
            }
            options.given[role] = argument
        }
        var endOfOptions = false
        while index < arguments.count {
            let argument = arguments[index]
            defer { index += 1 }
            if endOfOptions || argument == "-" || !argument.hasPrefix("-") {
                positional.append(argument)
                continue
            }
            switch argument {
            case "--":
                endOfOptions = true
            case "-h", "--help":
                return nil
            case "-H", "--header":
                let header = try value(for: argument)
                guard let colon = header.firstIndex(of: ":"), String(header[..<colon]).isHTTPToken else {
                    // Only what stands before the value is shown: a malformed header is often a
                    // credential with its colon missing (`-H "Authorization Bearer ..."`).
                    let name = header.prefix { $0 != " " && $0 != ":" && $0 != "=" }.prefix(40)
                    throw UsageError(description: "the header \"\(name)…\" given to \(argument) is not of the form 'Name: value'")
                }
                let field = HTTPHeaders.Field(
                    name: String(header[..<colon]), value: header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces))
                if let problem = HTTPClient.headerProblem(field) {
                    throw UsageError(description: "the header \"\(field.name)\" given to \(argument) cannot be sent: \(problem)")
                }
                options.headers.add(name: field.name, value: field.value)
            case "-d", "--data":
                try once(.body, argument)
                options.body = try Self.readData(try value(for: argument))
            case "--json":
                try once(.body, argument)
                let text = try value(for: argument)
                guard (try? JSONValue(parsing: Data(text.utf8))) != nil else {
                    throw UsageError(description: "--json: \(text.prefix(40)) is not valid JSON")
                }
                options.body = Data(text.utf8)
                options.isJSON = true
            case "-i", "--include":
                options.includeHeaders = true
            case "-o", "--output":
                try once(.output, argument)
                options.outputFile = try value(for: argument)
            case "-T", "--upload-file":
                try once(.upload, argument)
                options.uploadFile = try value(for: argument)
            case "--stream":
                options.streams = true
                options.given[.stream] = argument
            case "--fixtures":
                try once(.fixtures, argument)
                options.fixtures = try value(for: argument)
            case "--cassette":
                try once(.cassette, argument)
                options.cassette = try value(for: argument)
            case "--record-mode":
                try once(.recordMode, argument)
                let name = try value(for: argument)
                guard let mode = RecordMode(name: name) else {
                    throw UsageError(description: "--record-mode: \"\(name)\" is not one of none, once, new_episodes, all")
                }
                options.recordMode = mode
            default:
                throw UsageError(description: "unknown option \(argument) (use -- before a URL or method that starts with \"-\")")
            }
        }
        return try Command(options, positional: positional)
    }

    /// What the options said.
    struct Options {
        var headers: HTTPHeaders = [:]
        var body: Data?
        var isJSON = false
        var includeHeaders = false
        var fixtures: String?
        var cassette: String?
        var recordMode: RecordMode?
        var outputFile: String?
        var uploadFile: String?
        var streams = false
        /// Each role an option was given for, with the option as it was spelled (`-o` or
        /// `--output`), to name it in a message.
        var given: [Role: String] = [:]

        /// What an option does, when two options must not both do it (or one twice).
        enum Role {
            case body, upload, output, stream, fixtures, cassette, recordMode
        }

        /// Roles that contradict each other: the first pair given is refused, naming both options.
        static let conflicts: [(Role, Role)] = [
            (.upload, .body), (.upload, .output), (.upload, .stream), (.output, .stream), (.fixtures, .cassette),
        ]
    }

    private init(_ options: Options, positional: [String]) throws(UsageError) {
        for (first, second) in Options.conflicts {
            if let one = options.given[first], let other = options.given[second] {
                throw UsageError(description: "use \(one) or \(other), not both")
            }
        }
        guard options.recordMode == nil || options.cassette != nil else { throw UsageError(description: "--record-mode needs --cassette") }
        let urlText: String
        switch positional.count {
        case 1: urlText = positional[0]
        case 2:
            guard positional[0].isHTTPToken else {
                // Shown up to its first wrong byte: what follows may be a header line, a credential in it.
                let valid = String(decoding: positional[0].utf8.prefix(while: \.isHTTPTokenByte), as: UTF8.self)
                throw UsageError(description: "the method \"\(valid)…\" is not an HTTP method (a token such as GET, no spaces)")
            }
            method = HTTPMethod(rawValue: positional[0])
            urlText = positional[1]
        default:
            throw UsageError(
                description: positional.isEmpty ? "a URL is required" : "too many arguments: \(positional.joined(separator: " "))")
        }
        guard let url = URL(string: urlText), let scheme = url.scheme, ["http", "https"].contains(scheme.lowercased()), url.host != nil
        else {
            throw UsageError(description: "\"\(Redaction.standard.redacted(url: urlText))\" is not an http or https URL")
        }
        self.url = url
        self.options = options
    }

    /// The files `-o` and `-T` name, checked by httpc's own rules (``LocalFiles``) before
    /// anything is sent.
    func checkedFiles() throws(LocalFileError) -> (output: URL?, upload: URL?) {
        var files: (output: URL?, upload: URL?) = (nil, nil)
        if let path = options.outputFile { files.output = try LocalFiles.downloadDestination(path, for: url) }
        if let path = options.uploadFile { files.upload = try LocalFiles.uploadSource(path) }
        return files
    }

    /// The most `-d @FILE` reads: the body is held in memory, so an endless source (`/dev/zero`)
    /// or a huge file is refused instead of filling it; `-T` sends large files.
    static let dataFileLimit = 64 << 20

    private static func readData(_ argument: String) throws(UsageError) -> Data {
        guard argument.hasPrefix("@") else { return Data(argument.utf8) }
        let path = String(argument.dropFirst())
        let data: Data
        do {
            let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? file.close() }
            data = try file.read(upToCount: dataFileLimit + 1) ?? Data()
        } catch {
            throw UsageError(description: "\(path): cannot be read (\(SystemReason(error)))")
        }
        guard data.count <= dataFileLimit else {
            throw UsageError(description: "-d @\(path): more than \(dataFileLimit >> 20) MiB; send a large file with -T")
        }
        return data
    }

    /// The request to send: GET by default, POST when there is a body, PUT for `-T`.
    var request: HTTPClient.Request<Data> {
        let defaultMethod: HTTPMethod = options.uploadFile != nil ? .put : options.body == nil ? .get : .post
        var request = HTTPClient.Request<Data>(method: method ?? defaultMethod, url: url, headers: options.headers)
        if let body = options.body {
            request.body = .data(body, contentType: options.isJSON ? "application/json" : "application/x-www-form-urlencoded")
        }
        if options.isJSON, options.headers["Accept"] == nil { request.headers["Accept"] = "application/json" }
        return request
    }

    /// The session the flags (or the environment) ask for.
    func makeSession() throws -> any URLSessionProtocol {
        if let fixtures = options.fixtures {
            let stubs = StubRegistry("httpc --fixtures", reporting: .disabled)
            stubs.serve(try FixtureFolder(directory: URL(fileURLWithPath: fixtures)))
            return MockURLSession(stubs: stubs)
        }
        if let cassette = options.cassette {
            return try CassetteSession(
                file: URL(fileURLWithPath: cassette), mode: options.recordMode ?? RecordMode.fromEnvironment(),
                reporting: .disabled)
        }
        return try StubEnvironment.session()
    }
}
