import Foundation
import HTTPClient
import HTTPClientStubs
import Scenarios

// One path of the peer table (`ratios --peers`) alone, N requests, for `valgrind --tool=callgrind`:
//   profile --peer CELL N          through a real URLSession and the stub URLProtocol
//   profile --canned CELL N        the same request, answered by the minimal canned URLProtocol
//   profile --in-process CELL N    client.get(url:) (or post) on MockURLSession(stubs:)
//   profile --hand-written CELL N  the same call on the hand-written recording mock
//   profile --next-data N          client.get(url:) on MockURLSession() answering nextData
//                                  (its floor: --hand-written paths-1-only-url)
// `--session-alone` before an in-process mode drops the client: a bare data task on the session.
// CELL names a `PeerScenario` (`paths-1000-last-url`). The main thread waits on a semaphore:
// no `await` at the top level, which valgrind 3.19 does not survive on Linux.

let sessionAlone = CommandLine.arguments.dropFirst().first == "--session-alone"
let arguments = sessionAlone ? [CommandLine.arguments[0]] + CommandLine.arguments.dropFirst(2) : CommandLine.arguments
let usage =
    "usage: profile --peer|--canned CELL N, profile [--session-alone] --in-process|--hand-written CELL N, "
    + "or profile [--session-alone] --next-data N"

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

func cell(_ name: String) -> PeerScenario {
    guard let cell = PeerScenario.named(name) else {
        fail("profile: no cell \(name); the cells: \(PeerScenario.all.map(\.description).joined(separator: ", "))")
    }
    return cell
}

/// `count` in-process requests on `session`: through a client's `get`/`post`, or alone.
func run(_ session: any URLSessionProtocol, _ request: URLRequest, _ count: Int) {
    let call = sessionAlone ? { Scenarios.inProcessRequest(session, request) } : Scenarios.clientCall(session, request)
    for _ in 0..<count { call() }
}

/// One request on a real session, waited for.
func send(_ session: URLSession, _ request: URLRequest) {
    let answered = DispatchSemaphore(value: 0)
    session.dataTask(with: request) { _, response, _ in
        if response == nil { preconditionFailure("no response for \(request)") }
        answered.signal()
    }.resume()
    answered.wait()
}

guard arguments.count >= 3, let count = Int(arguments[arguments.count - 1]) else {
    fail(usage)
}
switch (arguments[1], arguments.count) {
case ("--peer", 4):
    let (registry, request) = cell(arguments[2]).prepare()
    let session = registry.makeURLSession()
    for _ in 0..<count { send(session, request) }
    // Ends with the registry alive: it was freed on corelibs' queue in some runs and not in
    // others (the race with the process's exit), which moved a 1,000-stub cell's difference by
    // 20k instructions a request. Its log is not freed in any run, as the canned floor has none.
    withExtendedLifetime((registry, session)) { exit(0) }
case ("--canned", 4):
    let request = cell(arguments[2]).prepare().request
    let session = Scenarios.cannedURLProtocolSession()
    for _ in 0..<count { send(session, request) }
case ("--in-process", 4):
    let (registry, request) = cell(arguments[2]).prepare()
    run(MockURLSession(stubs: registry), request, count)
case ("--hand-written", 4):
    run(HandWrittenMock(), cell(arguments[2]).prepare().request, count)
case ("--next-data", 3):
    let session = MockURLSession()
    session.nextData = Data("ok".utf8)
    run(session, PeerScenario.all[0].prepare().request, count)
default:
    fail(usage)
}
