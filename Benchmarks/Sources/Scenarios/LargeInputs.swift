import Foundation
import HTTPClient
import HTTPClientMocks

/// Bodies of many megabytes, for the work that must stay linear: fixture naming, redaction,
/// recording and reports.
public enum LargeInputs {
    /// A JSON array of `count` records, some with keys the standard redaction hides and a
    /// registered secret inside text: about 100 bytes a record.
    public static func json(records count: Int, secret: String) -> Data {
        var text = "["
        text.reserveCapacity(count * 110)
        for index in 0..<count {
            if index > 0 { text += "," }
            if index % 100 == 7 {
                text += #"{"id":\#(index),"accessToken":{"v":"tok-\#(index)"},"note":"see \#(secret) here"}"#
            } else {
                text += #"{"id":\#(index),"name":"user \#(index)","email":"u\#(index)@example.com","tags":["a","b"]}"#
            }
        }
        return Data((text + "]").utf8)
    }

    /// A POST with a JSON body, for fixture naming.
    public static func jsonPost(_ body: Data) -> RecordedRequest {
        var request = URLRequest(url: URL(string: "https://api.example.com/import?batch=1") ?? URL(fileURLWithPath: "/"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        return RecordedRequest(request)
    }

    /// A session whose every answer is `body`, for recording through a cassette.
    public static func upstream(answering body: Data) -> MockURLSession {
        let stubs = StubRegistry("large upstream", reporting: .disabled)
        stubs.stub(.get, "/large").respond(.status(200, headers: ["Content-Type": "application/octet-stream"], body: body))
        return MockURLSession(stubs: stubs)
    }
}
