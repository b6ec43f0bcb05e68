import Foundation
import HTTPClient
@_spi(Engine) import HTTPClientStubs

extension Targets {
    /// The Mocktail (`.tail`) parser and its patterns: no crash and no hang on any file. What it
    /// accepts has a real status, token header names and no base64 marker left in its
    /// Content-Type; and its patterns are then searched against a fixed request, which must
    /// finish (a pattern that backtracks without end is stopped by the search's time budget).
    static func mocktail(_ data: Data) {
        guard let files = try? MocktailFiles(parsing: data, file: URL(fileURLWithPath: "/fuzz.tail")) else { return }
        var request = URLRequest(url: URL(fileURLWithPath: "/"))
        if let url = URL(string: "https://api.example.com/users/7?page=2&q=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") { request.url = url }
        request.httpMethod = "GET"
        guard let answer = files.answer(for: RecordedRequest(request)) else { return }
        if !(100...599).contains(answer.statusCode) { fail("status \(answer.statusCode) accepted") }
        for field in answer.headers where field.name.isEmpty || field.name.contains(" ") || field.name.contains(":") {
            fail("header name \"\(field.name)\" accepted")
        }
        if let type = answer.headers["Content-Type"], type.lowercased().hasSuffix(";base64") {
            fail("the base64 marker was kept in \"\(type)\"")
        }
    }
}
