import Foundation
import HTTPClient
import HTTPClientStubs

// httpc: send one request with HTTPClient and print the answer, from the network, a fixture
// folder or a cassette.

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("httpc: \(message)\n".utf8))
    exit(status)
}

let command: Command
do {
    guard let parsed = try Command.parse(Array(CommandLine.arguments.dropFirst())) else {
        print(Command.usage)
        exit(0)
    }
    command = parsed
} catch {
    fail("\(error)\n\(Command.usage)", status: 2)
}

let session: any URLSessionProtocol
do {
    session = try command.makeSession()
} catch {
    fail("\(error)", status: 3)
}

let client = HTTPClient(session: session, validation: .acceptAll)
let response: HTTPClient.Response
do {
    response = try await client.send(command.request)
} catch {
    fail(Output.explain(error), status: 3)
}

print(Output.render(response, includeHeaders: command.options.includeHeaders))
if !response.isSuccessful {
    fail("HTTP \(response.statusCode) from \(Redaction.standard.redacted(url: (response.url ?? command.url).absoluteString))", status: 1)
}
