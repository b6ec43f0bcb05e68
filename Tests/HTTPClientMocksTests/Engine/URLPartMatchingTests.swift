import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@testable import HTTPClientStubs

/// The scheme and host conditions read a request's URL in place, by byte offsets found when the
/// request is captured, and compare it with text folded once when the stub is made. These tests
/// hold them to what a search of the URL's text finds, and to ASCII-only case folding.
@Suite("Scheme and host conditions")
struct URLPartMatchingTests {
    // MARK: The parts, against a search of the text

    /// The parts as a plain search of the text defines them (what the conditions read before
    /// they read offsets): the scheme before the first `:` unless a `/`, `?` or `#` comes
    /// first; the authority after the first `://`, without user information; the host up to
    /// the port's `:`, looked for after an IPv6 literal's `]`.
    private func searched(_ url: String) -> (scheme: String, authority: String, host: String) {
        let bytes = Array(url.utf8)
        func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        let delimiters = Set("/?#".utf8)
        var scheme = ""
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), !bytes[..<colon].contains(where: delimiters.contains) {
            scheme = text(0..<colon)
        }
        let marker = Array("://".utf8)
        guard let found = (0..<max(0, bytes.count - 2)).first(where: { Array(bytes[$0..<$0 + 3]) == marker }) else {
            return (scheme, "", "")
        }
        var start = found + 3
        let end = bytes[start...].firstIndex(where: delimiters.contains) ?? bytes.count
        if let at = bytes[start..<end].lastIndex(of: UInt8(ascii: "@")) { start = at + 1 }
        let searchFrom = bytes[start..<end].lastIndex(of: UInt8(ascii: "]")) ?? start
        let hostEnd = bytes[searchFrom..<end].firstIndex(of: UInt8(ascii: ":")) ?? end
        return (scheme, text(start..<end), text(start..<hostEnd))
    }

    @Test(
        "scheme, authority and host are found where a search of the URL's text finds them",
        arguments: [
            "https://API.example.com:8443/x", "https://user:pw@h.example/x", "https://a:b@c@h.example:81/x",
            "http://[::1]:8080/x?y", "http://[fe80::1%25en0]/x", "http://[::1]/x", "https://h.example?q=1", "https://h.example#f",
            "https://h.example/p?next=http://other.example/", "urn:x?u=http://h.example/p", "mailto:someone@example.com",
            "about:blank", "file:///tmp/x", "https://%C3%84pi.example/", "https://xn--bcher-kva.example/", "https://h.example",
            "HTTPS://H.EXAMPLE/", "https://h.example:/x", "x-custom+scheme.1://h/x",
        ])
    func partsAgreeWithASearchOfTheText(url: String) {
        let recorded = RecordedRequest(request("GET", url))
        let expected = searched(recorded.url.absoluteString)
        #expect(recorded.scheme.description == expected.scheme)
        #expect(recorded.authority.description == expected.authority)
        #expect(recorded.hostName.description == expected.host)
    }

    @Test("random URLs made of delimiters and letters split as the text search splits them", arguments: 0..<8)
    func randomURLsAgreeWithASearchOfTheText(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let alphabet = Array("aZ9:/?#@[]%.-~".utf8)
        var checked = 0
        for _ in 0..<300 {
            let length = Int.random(in: 1...24, using: &random)
            let text = String(decoding: (0..<length).map { _ in alphabet.randomElement(using: &random) ?? 0x61 }, as: UTF8.self)
            for candidate in ["https://" + text, text] {
                guard let url = URL(string: candidate) else { continue }
                let recorded = RecordedRequest(URLRequest(url: url))
                let expected = searched(url.absoluteString)
                #expect(recorded.scheme.description == expected.scheme, "\(url.absoluteString)")
                #expect(recorded.authority.description == expected.authority, "\(url.absoluteString)")
                #expect(recorded.hostName.description == expected.host, "\(url.absoluteString)")
                checked += 1
            }
        }
        #expect(checked > 100)
    }

    // MARK: Comparing

    @Test(
        "hosts compare with ASCII letters folded and every other byte exact",
        arguments: [
            ("https://API.Example.COM/x", "api.example.com", true), ("https://api.example.com/x", "API.EXAMPLE.COM", true),
            ("https://api.example.con/x", "api.example.com", false), ("https://api.example.com/x", "api.example.co", false),
            // '~' and '^' differ by the bit that cases letters: they are not a letter's two cases.
            ("https://h~x.example/x", "h^x.example", false), ("https://h~x.example/x", "H^X.example", false),
            ("https://h~x.example/x", "H~X.example", true),
            // Percent-encoded bytes compare as written, their hex digits case-insensitively.
            ("https://%C3%84pi.example/x", "%c3%84PI.example", true), ("https://%C3%84pi.example/x", "%C3%A4pi.example", false),
            ("https://xn--bcher-kva.example/x", "XN--BCHER-KVA.example", true),
            ("http://[FE80::1]:8080/x", "[fe80::1]", true), ("http://[fe80::1]:8080/x", "[fe80::1]:8080", true),
            ("http://[fe80::1]:8080/x", "[fe80::1]:8081", false), ("https://h.example:8443/x", "h.example", true),
            ("https://h.example/x", "h.example:8443", false), ("https://user@h.example/x", "user@h.example", false),
        ])
    func hostComparison(url: String, host: String, matches: Bool) {
        #expect(RequestMatcher.host(host).matches(RecordedRequest(request("GET", url))) == matches)
    }

    @Test("a host of non-ASCII letters is not folded: only ASCII letters have cases here")
    func nonASCIIHostsAreNotFolded() {
        #expect("ÄPI".caseInsensitiveEquals(asciiLowercased: "äpi") == false)
        #expect("ÄPI".caseInsensitiveEquals(asciiLowercased: "Äpi") == true)
        #expect("ÄPI".caseInsensitiveEquals("äpi") == false)
    }

    @Test(
        "schemes compare case-insensitively, and a URL without one matches none",
        arguments: [
            ("HTTPS://h.example/x", "https", true), ("https://h.example/x", "HTTPS", true), ("http://h.example/x", "https", false),
            ("mailto:someone@example.com", "mailto", true), ("about:blank", "about", true), ("https://h.example/x", "http", false),
        ])
    func schemeComparison(url: String, scheme: String, matches: Bool) {
        #expect(RequestMatcher.scheme(scheme).matches(RecordedRequest(request("GET", url))) == matches)
    }

    @Test func aStubRegisteredByFullURLAnswersOnlyItsSchemeHostAndPort() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "https://API.example.com:8443/users/1").respond(.status(200))
        let session = MockURLSession(stubs: stubs)
        for (url, answered) in [
            ("https://api.example.com:8443/users/1", true), ("HTTPS://API.EXAMPLE.COM:8443/users/1", true),
            ("https://api.example.com/users/1", false), ("http://api.example.com:8443/users/1", false),
            ("https://api.example.org:8443/users/1", false),
        ] {
            let result = try? await session.data(for: request("GET", url))
            #expect((result != nil) == answered, "\(url)")
        }
    }
}
