import Foundation
import HTTPClient
import HTTPClientStubs
import Scenarios

// One path of issue 25's table alone, N requests, for `valgrind --tool=callgrind`:
//   profile --peer CELL N          through a real URLSession and the stub URLProtocol
//   profile --canned CELL N        the same request, answered by the minimal canned URLProtocol
//   profile --in-process CELL N    MockURLSession(stubs:)
//   profile --hand-written N       the hand-written recording mock
//   profile --next-data N          MockURLSession() answering nextData
// CELL names a `PeerScenario` (`paths-1000-last-url`). The main thread waits on a semaphore:
// no `await` at the top level, which valgrind 3.19 does not survive on Linux.

let arguments = CommandLine.arguments

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
    fail("usage: profile --peer|--canned|--in-process CELL N, or profile --hand-written|--next-data N")
}
let oneStub = PeerScenario.all[0].prepare().request
switch (arguments[1], arguments.count) {
case ("--peer", 4):
    let (registry, request) = cell(arguments[2]).prepare()
    let session = registry.makeURLSession()
    for _ in 0..<count { send(session, request) }
case ("--canned", 4):
    let request = cell(arguments[2]).prepare().request
    let session = Scenarios.cannedURLProtocolSession()
    for _ in 0..<count { send(session, request) }
case ("--in-process", 4):
    let (registry, request) = cell(arguments[2]).prepare()
    let session = MockURLSession(stubs: registry)
    for _ in 0..<count { Scenarios.inProcessRequest(session, request) }
case ("--hand-written", 3):
    let session = HandWrittenMock(answering: oneStub.url ?? Scenarios.fixedURL("https://api.example.com"))
    for _ in 0..<count { Scenarios.inProcessRequest(session, oneStub) }
case ("--next-data", 3):
    let session = MockURLSession()
    session.nextData = Data("ok".utf8)
    for _ in 0..<count { Scenarios.inProcessRequest(session, oneStub) }
default:
    fail("usage: profile --peer|--canned|--in-process CELL N, or profile --hand-written|--next-data N")
}
