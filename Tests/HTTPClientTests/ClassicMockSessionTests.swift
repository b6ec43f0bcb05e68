import Foundation
import HTTPClientMocks
import XCTest

@testable import HTTPClient

/// The classic "Testing NSURLSession" specifications, in XCTest, with no expectations: the
/// mock session completes inside `resume()`, so results are there when `get` returns.
final class ClassicMockSessionTests: XCTestCase {
    func testGetRequestsTheURL() {
        let session = MockURLSession()
        let client = HTTPClient(session: session)

        client.get(url: url("https://example.com/users")) { _ in }

        XCTAssertEqual(session.lastURL, url("https://example.com/users"))
    }

    func testGetStartsTheRequest() {
        let session = MockURLSession()
        let task = MockURLSessionDataTask()
        session.nextDataTask = task
        let client = HTTPClient(session: session)

        client.get(url: url("https://example.com/users")) { _ in }

        XCTAssertTrue(task.resumeWasCalled)
        XCTAssertEqual(task.resumeCount, 1)
    }

    func testCannedDataArrivesBeforeGetReturns() throws {
        let session = MockURLSession()
        session.nextData = Data("hello".utf8)
        let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()

        HTTPClient(session: session).get(url: url("https://example.com/greeting"), completion: recorder.record)

        let response = try XCTUnwrap(recorder.value).get()
        XCTAssertEqual(response.body, Data("hello".utf8))
        XCTAssertEqual(response.statusCode, 200)
    }

    func testCannedResponseArrivesBeforeGetReturns() throws {
        let session = MockURLSession()
        session.nextResponse = HTTPURLResponse(
            url: url("https://example.com/new"), statusCode: 201, httpVersion: "HTTP/1.1",
            headerFields: ["Location": "/new/7"])
        let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()

        HTTPClient(session: session).get(url: url("https://example.com/new"), completion: recorder.record)

        let response = try XCTUnwrap(recorder.value).get()
        XCTAssertEqual(response.statusCode, 201)
        XCTAssertEqual(response.headers["location"], "/new/7")
    }

    func testCannedErrorArrivesBeforeGetReturns() throws {
        let session = MockURLSession()
        session.nextError = URLError(.notConnectedToInternet)
        let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()

        HTTPClient(session: session).get(url: url("https://example.com/x"), completion: recorder.record)

        let error = try XCTUnwrap(XCTUnwrap(recorder.value).failure)
        XCTAssertEqual(error.urlError?.code, .notConnectedToInternet)
        XCTAssertEqual(error.urlError?.failingURL, url("https://example.com/x"))
    }

    func testStatusOutsideTwoHundredsIsAnErrorThatKeepsTheBody() throws {
        let session = MockURLSession()
        session.enqueue(.json(raw: #"{"error":"no such user"}"#, status: 404))
        let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()

        HTTPClient(session: session).get(url: url("https://example.com/users/9"), completion: recorder.record)

        let error = try XCTUnwrap(XCTUnwrap(recorder.value).failure)
        guard case .unacceptableStatus(let response) = error else {
            return XCTFail("expected unacceptableStatus, got \(error)")
        }
        XCTAssertEqual(response.statusCode, 404)
        XCTAssertEqual(response.text, #"{"error":"no such user"}"#)
        XCTAssertEqual(error.response?.headers["content-type"], "application/json")
    }

    func testPostSendsTheMethodAndTheBody() throws {
        let session = MockURLSession()
        let body = Data(#"{"name":"Ada"}"#.utf8)

        HTTPClient(session: session).post(url: url("https://example.com/users"), body: body) { _ in }

        let request = try XCTUnwrap(session.requests.last?.urlRequest)
        XCTAssertEqual(request.httpMethod, "POST")
        XCTAssertEqual(request.httpBody, body)
    }
}
