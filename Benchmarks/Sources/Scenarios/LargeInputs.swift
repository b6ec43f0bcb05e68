import Foundation
import HTTPClient
import HTTPClientStubs

/// Bodies of many megabytes, for the work that must stay linear: fixture naming, redaction,
/// recording and reports.
public enum LargeInputs {
    /// A JSON array of `count` records, some with keys the standard redaction hides and a
    /// registered secret inside text: about 100 bytes a record.
    public static func json(records count: Int, secret: String) -> Data {
        // Built as bytes, never as a String first: the peak-memory scenarios measure from a
        // baseline taken after this, and a transient second copy would be the peak they report.
        var data = Data()
        data.reserveCapacity(count * 110)
        data.append(UInt8(ascii: "["))
        for index in 0..<count {
            if index > 0 { data.append(UInt8(ascii: ",")) }
            if index % 100 == 7 {
                data.append(contentsOf: #"{"id":\#(index),"accessToken":{"v":"tok-\#(index)"},"note":"see \#(secret) here"}"#.utf8)
            } else {
                data.append(contentsOf: #"{"id":\#(index),"name":"user \#(index)","email":"u\#(index)@example.com","tags":["a","b"]}"#.utf8)
            }
        }
        data.append(UInt8(ascii: "]"))
        return data
    }

    /// `size` bytes that are not UTF-8 text, made in place.
    public static func binary(size: Int) -> Data {
        var data = Data(count: size)
        data.withUnsafeMutableBytes { buffer in
            for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 7) | 0x80 }
        }
        return data
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
