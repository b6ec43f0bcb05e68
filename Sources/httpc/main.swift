import Foundation
import HTTPClient
import HTTPClientStubs

// httpc: send one request with HTTPClient and print the answer, from the network, a fixture
// folder or a cassette.

/// Prints `message` on stderr, with what `redaction` hides hidden, and exits with `status`.
func fail(_ message: String, status: Int32, hiding redaction: Redaction = .standard) -> Never {
    FileHandle.standardError.write(Data("httpc: \(redaction.redacted(text: message))\n".utf8))
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
let redaction = Output.redaction(url: command.url, headers: command.options.headers, body: command.options.body)

// The files are checked before anything is sent: nothing goes out, and nothing is touched,
// when one cannot be used.
let files: (output: URL?, upload: URL?)
do {
    files = try command.checkedFiles()
} catch {
    fail(error.description, status: 2, hiding: redaction)
}

let session: any URLSessionProtocol
do {
    session = try command.makeSession()
} catch {
    fail("\(error)", status: 3, hiding: redaction)
}

let client = HTTPClient(session: session, validation: .acceptAll)
let response: HTTPClient.Response
// What arrived before a failure, to say so: a failure after the head is not "no response".
var head: HTTPClient.Response?
var received: TransferProgress?
do throws(HTTPClientError) {
    if let output = files.output {
        let progress = Progress(showing: isatty(STDERR_FILENO) == 1)
        do {
            response = try await client.download(command.request, to: output) { progress.show($0) }.head
        } catch {
            // The library says nothing of a head before the body is complete; bytes say it came.
            received = progress.received
            throw error
        }
        progress.finish()
        print(Output.render(response, includeHeaders: command.options.includeHeaders, body: false))
    } else if let upload = files.upload {
        response = try await client.upload(command.request, fromFile: upload)
        print(Output.render(response, includeHeaders: command.options.includeHeaders))
    } else {
        // Streamed in both cases, so that a body cut short is told from no response at all.
        let stream = try await client.stream(command.request)
        head = stream.head
        // The length announced, unless it counts the bytes of an encoding the session removes.
        let length = stream.head.headers.contains("Content-Encoding") ? nil : stream.head.headers["Content-Length"].flatMap { Int64($0) }
        var partial = TransferProgress(bytes: 0, expectedBytes: length)
        received = partial
        if command.options.streams {
            print(Output.render(stream.head, includeHeaders: command.options.includeHeaders, body: false))
            // The head first: print buffers, the chunks go straight to the descriptor.
            fflush(nil)
            for try await chunk in stream.chunks {
                FileHandle.standardOutput.write(chunk)
                partial.bytes += Int64(chunk.count)
                received = partial
            }
            response = stream.head
        } else {
            var whole = stream.head
            for try await chunk in stream.chunks {
                whole.body.append(chunk)
                partial.bytes += Int64(chunk.count)
                received = partial
            }
            response = whole
            print(Output.render(response, includeHeaders: command.options.includeHeaders))
        }
    }
} catch {
    if let received {
        let message = Output.incomplete(
            from: head?.url ?? command.url, status: head?.statusCode, received: received, error: error)
        fail(message, status: 4, hiding: redaction)
    }
    fail(Output.explain(error), status: 3, hiding: redaction)
}

if !response.isSuccessful {
    fail(
        "HTTP \(response.statusCode) from \(Redaction.standard.redacted(url: (response.url ?? command.url).absoluteString))", status: 1,
        hiding: redaction)
}
