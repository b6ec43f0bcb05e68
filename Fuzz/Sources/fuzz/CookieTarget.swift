import Foundation
import HTTPClient
import HTTPClientStubs

extension Targets {
    /// The cookie rules of the session emulation: a stubbed answer from one URL sets arbitrary
    /// `Set-Cookie` lines, then a request to another URL shows what the session sends.
    ///
    /// Input: lines of text; the first is the URL that sets the cookies, the second the URL
    /// read next, the rest `Set-Cookie` values (64 at most). The checks are written here, apart
    /// from the rules they test: nothing stored breaks RFC 6265's limits, and every cookie sent
    /// is a stored one that belongs to the request.
    static func cookies(_ data: Data) {
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count >= 3, let setter = URL(string: lines[0]), let reader = URL(string: lines[1]),
            let setterHost = setter.host?.lowercased(), !setterHost.isEmpty
        else { return }
        var headers: HTTPHeaders = [:]
        for line in lines.dropFirst(2).prefix(64) { headers.add(name: "Set-Cookie", value: line) }
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(where: .method(.get)).respond(.status(200, headers: headers))
        let configuration = URLSessionConfiguration.ephemeral
        let session = MockURLSession(stubs: stubs, configuration: configuration)
        session.makeDataTask(with: URLRequest(url: setter)) { _, _, _ in }.resume()

        let now = Date()
        let stored = configuration.httpCookieStorage?.cookies ?? []
        var perDomain: [String: Int] = [:]
        for cookie in stored {
            let domain =
                cookie.domain.lowercased().hasPrefix(".") ? String(cookie.domain.lowercased().dropFirst()) : cookie.domain.lowercased()
            perDomain[domain, default: 0] += 1
            if cookie.isSecure, setter.scheme?.lowercased() != "https" { fail("a Secure cookie was stored from \(setter)") }
            if domain != setterHost.trimmingSuffixDot, !domain.contains(".") || Self.listedSuffixes.contains(domain) {
                fail("a cookie for the public suffix \(domain) was stored from \(setterHost)")
            }
            if cookie.domain.hasPrefix("."),
                !(setterHost.trimmingSuffixDot == domain || setterHost.trimmingSuffixDot.hasSuffix("." + domain))
            {
                fail("a cookie for \(cookie.domain) was stored from \(setterHost)")
            }
            if !cookie.domain.hasPrefix("."), domain != setterHost.trimmingSuffixDot {
                fail("a host-only cookie for \(domain) was stored from \(setterHost)")
            }
            if cookie.name.utf8.count + cookie.value.utf8.count > 4096 { fail("a cookie of more than 4096 bytes was stored") }
            if let expiry = cookie.expiresDate, expiry <= now { fail("an expired cookie was stored") }
        }
        if let (domain, count) = perDomain.first(where: { $0.value > 50 }) { fail("\(count) cookies were stored for \(domain)") }

        session.makeDataTask(with: URLRequest(url: reader)) { _, _, _ in }.resume()
        guard let sent = stubs.requests.last?.headers["Cookie"] else { return }
        let readerPath =
            URLComponents(url: reader, resolvingAgainstBaseURL: true).map { $0.percentEncodedPath.isEmpty ? "/" : $0.percentEncodedPath }
            ?? "/"
        for pair in sent.components(separatedBy: "; ") {
            let belongs = stored.contains { cookie in
                "\(cookie.name)=\(cookie.value)" == pair && Self.pathMatches(readerPath, cookie.path)
                    && (!cookie.isSecure || reader.scheme?.lowercased() == "https")
            }
            if !belongs { fail("\(pair) was sent to \(reader) though no stored cookie for that path and scheme has it") }
        }
    }

    /// Some of the multi-label public suffixes the rules must know.
    private static let listedSuffixes: Set<String> = ["co.uk", "com.au", "github.io", "herokuapp.com", "co.jp"]

    /// RFC 6265 section 5.1.4, written again from the text.
    private static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        let request = Array(requestPath.utf8)
        let cookie = Array(cookiePath.utf8)
        guard request.starts(with: cookie) else { return false }
        return request.count == cookie.count || cookie.last == UInt8(ascii: "/") || request[cookie.count] == UInt8(ascii: "/")
    }
}

extension String {
    fileprivate var trimmingSuffixDot: String { hasSuffix(".") ? String(dropLast()) : self }
}
