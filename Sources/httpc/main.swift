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
    if let output = command.options.outputFile {
        let progress = Progress(showing: isatty(STDERR_FILENO) == 1)
        response = try await client.download(command.request, to: URL(fileURLWithPath: output)) { progress.show($0) }.head
        progress.finish()
        print(Output.render(response, includeHeaders: command.options.includeHeaders, body: false))
    } else if let upload = command.options.uploadFile {
        response = try await client.upload(command.request, fromFile: URL(fileURLWithPath: upload))
        print(Output.render(response, includeHeaders: command.options.includeHeaders))
    } else if command.options.streams {
        let stream = try await client.stream(command.request)
        response = stream.head
        print(Output.render(response, includeHeaders: command.options.includeHeaders, body: false))
        // The head first: print buffers, the chunks go straight to the descriptor.
        fflush(nil)
        for try await chunk in stream.chunks {
            FileHandle.standardOutput.write(chunk)
        }
    } else {
        response = try await client.send(command.request)
        print(Output.render(response, includeHeaders: command.options.includeHeaders))
    }
} catch {
    fail(Output.explain(error), status: 3)
}

if !response.isSuccessful {
    fail("HTTP \(response.statusCode) from \(Redaction.standard.redacted(url: (response.url ?? command.url).absoluteString))", status: 1)
}
