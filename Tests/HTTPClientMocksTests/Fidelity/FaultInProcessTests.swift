import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@testable import HTTPClientStubs

/// On the in-process transports a stub's fault is the error a `URLSession` reports for it, and
/// a body framed as given is read as a session reads those bytes.
@Suite("Faults and a stub's own framing, in process")
struct FaultInProcessTests {
    private let url = testURL("https://api.example.com/r")

    private func result(_ response: MockResponse, on transport: Transport, timeout: TimeInterval = 60) async -> Result<String, URLError> {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/r").respond(response)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        do {
            let (data, _) = try await transport.session(stubs, configuration: configuration).data(for: URLRequest(url: url))
            return .success(String(decoding: data, as: UTF8.self))
        } catch {
            return .failure(error as? URLError ?? URLError(.unknown))
        }
    }

    @Test(
        arguments: Transport.inProcess,
        [StubFault.connectionReset, .emptyResponse, .garbage(Data("x".utf8)), .malformedChunk, .disconnectDuringRequestBody])
    func aFaultIsItsSessionError(transport: Transport, fault: StubFault) async {
        let expected = fault.sessionError(for: url)
        guard case .failure(let error) = await result(.fault(fault), on: transport) else {
            Issue.record("\(fault) answered")
            return
        }
        #expect(error.code == expected.code)
        #expect(error.failingURL == url)
    }

    @Test(arguments: Transport.inProcess)
    func aStallIsEndedByTheRequestsTimeout(transport: Transport) async {
        guard case .failure(let error) = await result(.fault(.stall), on: transport, timeout: 0.2) else {
            Issue.record("a stall answered")
            return
        }
        #expect(error.code == .timedOut)
    }

    @Test(arguments: Transport.inProcess)
    func aBodyLongerThanItsOwnContentLengthIsCutToIt(transport: Transport) async {
        let response = MockResponse.status(200, headers: ["Content-Length": "3"], body: Data("abcdef".utf8)).framedAsGiven()
        #expect(await result(response, on: transport) == .success("abc"))
    }

    @Test(arguments: Transport.inProcess)
    func aBodyShorterThanItsOwnContentLengthFails(transport: Transport) async {
        let response = MockResponse.status(200, headers: ["Content-Length": "30"], body: Data("abc".utf8)).framedAsGiven()
        #expect(await result(response, on: transport) == .failure(StubFault.truncatedBodyError(for: url)))
    }

    @Test(arguments: Transport.inProcess)
    func aChunkedBodyIsDechunkedAndAMalformedOneFails(transport: Transport) async {
        let good = MockResponse.status(200, headers: ["Transfer-Encoding": "chunked"], body: Data("2\r\nok\r\n0\r\n\r\n".utf8))
        #expect(await result(good.framedAsGiven(), on: transport) == .success("ok"))
        let bad = MockResponse.status(200, headers: ["Transfer-Encoding": "chunked"], body: Data("2\r\nok\r\nzz\r\n".utf8))
        guard case .failure(let error) = await result(bad.framedAsGiven(), on: transport) else {
            Issue.record("a malformed chunk answered")
            return
        }
        #expect(error.code == StubFault.malformedChunk.sessionError(for: url).code)
        let cut = MockResponse.status(200, headers: ["Transfer-Encoding": "chunked"], body: Data("5\r\nok".utf8))
        #expect(await result(cut.framedAsGiven(), on: transport) == .failure(StubFault.truncatedBodyError(for: url)))
    }

    @Test(arguments: Transport.inProcess)
    func aReasonPhraseChangesNothingASessionCanSee(transport: Transport) async {
        #expect(await result(.text("fine").reason("Quite Fine"), on: transport) == .success("fine"))
    }
}
