import Foundation
import HTTPClient
import HTTPClientStubs

// httpc: send one request with HTTPClient and print the answer, from the network, a fixture
// folder or a cassette; or, as `httpc serve`, answer requests from them on a local port.

/// Prints `message` on stderr, with what `redaction` hides hidden, and exits with `status`.
func fail(_ message: String, status: Int32, hiding redaction: Redaction = .standard) -> Never {
    FileHandle.standardError.write(Data("httpc: \(redaction.redacted(text: message))\n".utf8))
    exit(status)
}

if CommandLine.arguments.dropFirst().first == "serve" { Serve.run(Array(CommandLine.arguments.dropFirst(2))) }

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
// What arrived before a failure, to say so: a failure after the head is not "no response".
var head: HTTPClient.Response<Data>?
var received: TransferProgress?

/// Sends the request as the options ask and prints the answer (the head, and the body unless it
/// went to a file); returns the response.
@MainActor func send() async throws(HTTPClientError) -> HTTPClient.Response<Data> {
    if let output = files.output {
        let progress = Progress(showing: isatty(STDERR_FILENO) == 1)
        let response: HTTPClient.Response<Data>
        do {
            response = try await client.download(command.request, to: output) { progress.show($0) }.head
        } catch {
            // The library says nothing of a head before the body is complete; bytes say it came.
            received = progress.received
            progress.finish()
            throw error
        }
        progress.finish()
        // A download that ends because it was cancelled is not a complete body.
        if Task.isCancelled { throw .cancelled }
        print(Output.render(response, includeHeaders: command.options.includeHeaders, body: false))
        return response
    }
    if let upload = files.upload {
        let response = try await client.upload(command.request, from: .file(upload))
        print(Output.render(response, includeHeaders: command.options.includeHeaders))
        return response
    }
    // Streamed in both cases, so that a body cut short is told from no response at all.
    let stream = try await client.stream(command.request)
    head = stream.head
    // The length announced, unless it counts the bytes of an encoding the session removes.
    let length = stream.head.headers["Content-Encoding"] != nil ? nil : stream.head.headers["Content-Length"].flatMap { Int64($0) }
    var partial = TransferProgress(bytes: 0, expectedBytes: length)
    received = partial
    var whole = stream.head
    if command.options.streams {
        print(Output.render(stream.head, includeHeaders: command.options.includeHeaders, body: false))
        // The head first: print buffers, the chunks go straight to the descriptor.
        fflush(nil)
    }
    for try await chunk in stream.chunks {
        if command.options.streams { FileHandle.standardOutput.write(chunk) } else { whole.body.append(chunk) }
        partial.bytes += Int64(chunk.count)
        received = partial
    }
    // Nor a stream that ends because its reader was cancelled.
    if Task.isCancelled { throw .cancelled }
    if !command.options.streams { print(Output.render(whole, includeHeaders: command.options.includeHeaders)) }
    return stream.head
}

let sending = Task { @MainActor () -> Result<HTTPClient.Response<Data>, HTTPClientError> in
    do throws(HTTPClientError) {
        return .success(try await send())
    } catch {
        return .failure(error)
    }
}
// Ctrl-C cancels the transfer rather than killing the process mid-write: the library then
// removes what it wrote, and httpc says what had arrived.
signal(SIGINT, SIG_IGN)
let interruption = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
interruption.setEventHandler { sending.cancel() }
interruption.resume()

let response: HTTPClient.Response<Data>
switch await sending.value {
case .success(let answer):
    response = answer
case .failure(.cancelled):
    fail(Output.interrupted(from: head?.url ?? command.url, status: head?.statusCode, received: received), status: 130, hiding: redaction)
case .failure(.file(let problem)) where received == nil:
    // The library's own check of a file, after httpc's (the file changed in between): as
    // httpc's own refusal, nothing was sent.
    fail(problem.description, status: 2, hiding: redaction)
case .failure(let error):
    if let received {
        let message = Output.incomplete(from: head?.url ?? command.url, status: head?.statusCode, received: received, error: error)
        fail(message, status: 4, hiding: redaction)
    }
    fail(Output.explain(error), status: 3, hiding: redaction)
}

if !response.isSuccessful {
    fail(
        "HTTP \(response.statusCode) from \(Redaction.standard.redacted(url: (response.url ?? command.url).absoluteString))", status: 1,
        hiding: redaction)
}
