import Foundation
import HTTPClient
import HTTPClientMocks

/// The parsed command line of `httpc`.
struct Command {
    var method: HTTPMethod?
    var url: URL
    var headers = HTTPHeaders()
    var body: Data?
    var isJSON = false
    var includeHeaders = false
    var fixtures: String?
    var cassette: String?
    var recordMode: RecordMode?

    static let usage = """
        usage: httpc [METHOD] URL [-H 'Name: value']... [-d DATA | --json JSON] [-i]
                     [--fixtures DIR | --cassette FILE [--record-mode none|once|new_episodes|all]]

          -H, --header 'Name: value'  add a request header (repeatable)
          -d, --data DATA             send DATA as the body (@FILE reads a file); default method POST
              --json JSON             send JSON with Content-Type and Accept application/json
          -i, --include               print the response headers
              --fixtures DIR          answer from a VOKMockData fixture folder (offline)
              --cassette FILE         replay a cassette (record with --record-mode)

        Without --fixtures or --cassette, HTTPCLIENT_FIXTURES or HTTPCLIENT_CASSETTE in the
        environment choose the answers; otherwise the request goes to the network.
        Exit status: 0 for 2xx, 1 for another status, 2 for a usage error, 3 for a failed request.
        """

    /// A usage error: what was wrong with the command line.
    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    init(arguments: [String]) throws(UsageError) {
        var positional: [String] = []
        var headers = HTTPHeaders()
        var data: Data?
        var isJSON = false
        var include = false
        var fixtures: String?, cassette: String?, recordMode: RecordMode?
        var index = 0
        func value(for option: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(description: "\(option) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "-H", "--header":
                let header = try value(for: argument)
                guard let colon = header.firstIndex(of: ":"), colon != header.startIndex else {
                    throw UsageError(description: "the header \"\(header)\" is not of the form 'Name: value'")
                }
                headers.add(name: header[..<colon].trimmingCharacters(in: .whitespaces),
                            value: header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            case "-d", "--data":
                guard data == nil else { throw UsageError(description: "give one body: -d or --json, once") }
                data = try Self.readData(try value(for: argument))
            case "--json":
                guard data == nil else { throw UsageError(description: "give one body: -d or --json, once") }
                let text = try value(for: argument)
                guard (try? JSONValue(parsing: Data(text.utf8))) != nil else {
                    throw UsageError(description: "--json: \(text.prefix(40)) is not valid JSON")
                }
                data = Data(text.utf8)
                isJSON = true
            case "-i", "--include":
                include = true
            case "--fixtures":
                fixtures = try value(for: argument)
            case "--cassette":
                cassette = try value(for: argument)
            case "--record-mode":
                let name = try value(for: argument)
                guard let mode = RecordMode(name: name) else {
                    throw UsageError(description: "--record-mode: \"\(name)\" is not one of none, once, new_episodes, all")
                }
                recordMode = mode
            default:
                guard !argument.hasPrefix("-") || argument == "-" else { throw UsageError(description: "unknown option \(argument)") }
                positional.append(argument)
            }
            index += 1
        }
        guard fixtures == nil || cassette == nil else { throw UsageError(description: "use --fixtures or --cassette, not both") }
        guard recordMode == nil || cassette != nil else { throw UsageError(description: "--record-mode needs --cassette") }
        let urlText: String
        switch positional.count {
        case 1: urlText = positional[0]
        case 2:
            method = HTTPMethod(rawValue: positional[0])
            urlText = positional[1]
        default:
            throw UsageError(description: positional.isEmpty ? "a URL is required" : "too many arguments: \(positional.joined(separator: " "))")
        }
        guard let url = URL(string: urlText), let scheme = url.scheme, ["http", "https"].contains(scheme.lowercased()), url.host != nil else {
            throw UsageError(description: "\"\(urlText)\" is not an http or https URL")
        }
        self.url = url
        self.headers = headers
        self.body = data
        self.isJSON = isJSON
        self.includeHeaders = include
        self.fixtures = fixtures
        self.cassette = cassette
        self.recordMode = recordMode
    }

    private static func readData(_ argument: String) throws(UsageError) -> Data {
        guard argument.hasPrefix("@") else { return Data(argument.utf8) }
        let path = String(argument.dropFirst())
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError(description: "-d: cannot read the file \(path)")
        }
        return data
    }

    /// The request to send: GET by default, POST when there is a body.
    var request: HTTPClient.Request {
        var request = HTTPClient.Request(method: method ?? (body == nil ? .get : .post), url: url, headers: headers)
        if let body {
            request.body = .data(body, contentType: isJSON ? "application/json" : "application/x-www-form-urlencoded")
        }
        if isJSON, !headers.contains("Accept") { request.headers["Accept"] = "application/json" }
        return request
    }

    /// The session the flags (or the environment) ask for.
    func makeSession() throws -> any URLSessionProtocol {
        if let fixtures {
            let stubs = StubRegistry("httpc --fixtures", reporting: .disabled)
            stubs.serve(try FixtureFolder(directory: URL(fileURLWithPath: fixtures)))
            return MockURLSession(stubs: stubs)
        }
        if let cassette {
            return try CassetteSession(file: URL(fileURLWithPath: cassette), mode: recordMode ?? RecordMode.fromEnvironment(),
                                       reporting: .disabled)
        }
        return try StubEnvironment.session()
    }
}
