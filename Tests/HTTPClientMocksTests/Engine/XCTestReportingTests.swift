import Foundation
import HTTPClient
import HTTPClientMocks
import XCTest

/// Verification failures inside an XCTest test are XCTest failures at the caller's line. The
/// test captures them (instead of failing) to check exactly what was reported.
final class XCTestReportingTests: XCTestCase {
    private let captured = Locked<[(description: String, line: Int)]>([])

    #if canImport(ObjectiveC)
    override func record(_ issue: XCTIssue) {
        captured.withLock { $0.append((issue.compactDescription, issue.sourceCodeContext.location?.lineNumber ?? -1)) }
    }
    #else
    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        captured.withLock { $0.append((description, lineNumber)) }
    }
    #endif

    func testVerificationFailureIsAnXCTestFailureAtTheCallersLine() {
        let stubs = StubRegistry("xctest registry")
        let stub = stubs.stub(.get, "/users/1")
        let line = #line + 1
        stubs.verify(stub, requested: .exactly(1))

        let failures = captured.current
        XCTAssertEqual(failures.count, 1)
        XCTAssertEqual(failures.first?.line, line)
        XCTAssertTrue(failures.first?.description.contains("to be requested exactly 1 time, but it was requested 0 times") == true)
    }

    func testUnmatchedRequestFailsTheTestAndReturnsTheReport() throws {
        let stubs = StubRegistry("xctest registry")
        let session = MockURLSession(stubs: stubs)
        let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()

        HTTPClient(session: session).get(url: try XCTUnwrap(URL(string: "https://h/nothing")), completion: recorder.record)

        XCTAssertEqual(captured.current.count, 1)
        XCTAssertTrue(captured.current.first?.description.contains("Unmatched request in \"xctest registry\"") == true)
        guard case .failure(let error) = try XCTUnwrap(recorder.value) else { return XCTFail("expected a failure") }
        XCTAssertTrue(error.description.contains("GET https://h/nothing"))
    }
}
