import Foundation
import HTTPClient
import Testing

@testable import HTTPClientStubs

/// A registered secret, tried in every place and encoding a value can travel in: each case is
/// a way it could slip through (hostile input, or a careless echo server). Values hidden
/// wherever they appear and custom rules, which the stub engine adds to a redaction too.
@Suite("Secrets and custom rules")
struct SecretRedactionTests {
    static let secret = "SEKRIT-value/1+2"
    let redaction = Redaction.standard.secret(Self.secret)

    // MARK: Registered secrets, in every encoding

    static let encodings: [(name: String, text: String)] = {
        let bytes = Array(secret.utf8)
        var forms: [(String, String)] = [
            ("raw", secret),
            ("query as the client encodes it", "SEKRIT-value%2F1%2B2"),
            ("lowercase percent-encoding", "SEKRIT-value%2f1%2b2"),
            ("every byte percent-encoded", bytes.map { "%" + String($0, radix: 16) }.joined()),
            ("JSON-escaped slash", #"SEKRIT-value\/1+2"#),
            ("JSON unicode escapes", #"\u0053EKRIT-value\u002F1\u002b2"#),
            (
                "base64url",
                Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            ),
        ]
        for offset in 0..<3 {
            let padded = Data(Array("abc".utf8).prefix(offset) + bytes + Array("xyz".utf8))
            forms.append(("base64 at offset \(offset)", padded.base64EncodedString()))
        }
        return forms
    }()

    @Test("a registered secret is found in a URL path, query and fragment", arguments: encodings.map(\.text))
    func secretInAURL(encoded: String) {
        for url in ["https://h/a/\(encoded)/b", "https://h/a?q=\(encoded)&page=2", "https://h/a#x=\(encoded)"] {
            let redacted = redaction.redacted(url: url)
            #expect(!redaction.containsSecret(redacted.utf8), "\(url) -> \(redacted)")
            #expect(redacted.contains("REDACTED"))
        }
    }

    @Test("a registered secret is found in a header value and a text body", arguments: encodings.map(\.text))
    func secretInHeadersAndBodies(encoded: String) {
        let header = redaction.redacted(header: "X-Echo", value: "got \(encoded) ok")
        #expect(header.hasPrefix("got ") && header.hasSuffix(" ok") && header.contains("REDACTED"))
        #expect(!redaction.containsSecret(header.utf8), "\(header)")
        let body = redaction.redacted(body: Data(#"{"echo": "\#(encoded)", "n": 1}"#.utf8), contentType: "application/json")
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.hasPrefix(#"{"echo": ""#) && text.hasSuffix(#"", "n": 1}"#) && text.contains("REDACTED"))
        #expect(!redaction.containsSecret(body), "\(text)")
    }

    @Test func aSecretAlignedInBase64IsReplacedWhole() {
        let encoded = Data(Self.secret.utf8).base64EncodedString()
        #expect(redaction.redacted(header: "X-Echo", value: "got \(encoded) ok").hasPrefix("got REDACTED"))
    }

    @Test func aSecretWithASpaceIsFoundWithPlusForTheSpace() {
        let redaction = Redaction.none.secret("open sesame 42")
        #expect(redaction.redacted(url: "https://h/?q=open+sesame+42&x=1") == "https://h/?q=REDACTED&x=1")
        #expect(redaction.redacted(url: "https://h/?q=open%20sesame%2042") == "https://h/?q=REDACTED")
    }

    @Test func aSecretInsideABinaryBodyIsFoundAtAnyOffset() {
        var random = SystemRandomNumberGenerator()
        for offset in [0, 1, 2, 3, 1000] {
            let noise = (0..<offset).map { _ in UInt8.random(in: 0x80...0xFF, using: &random) }
            let body = Data(noise + Array(Self.secret.utf8) + [0xFF, 0x00, 0xFE])
            let redacted = redaction.redacted(body: body, contentType: "application/octet-stream")
            #expect(!redaction.containsSecret(redacted))
            #expect(!redaction.containsSecret(Data(redacted.base64EncodedString().utf8)), "base64 of the result at offset \(offset)")
            #expect(redacted.prefix(offset) == Data(noise), "the bytes around the secret are kept")
        }
    }

    @Test func aNonASCIISecretIsFoundJSONEscapedAsSurrogatePairs() {
        let redaction = Redaction.none.secret("clé-🔑-42")
        let escaped = #"{"v": "cl\u00e9-\ud83d\udd11-42"}"#
        #expect(String(decoding: redaction.redacted(body: Data(escaped.utf8), contentType: nil), as: UTF8.self) == #"{"v": "REDACTED"}"#)
        #expect(redaction.redacted(url: "https://h/?v=cl%C3%A9-%F0%9F%94%91-42") == "https://h/?v=REDACTED")
    }

    @Test func textWithoutTheSecretIsLeftAlone() {
        let text = "SEKRIT-value/1+3 and SEKRIT and %2F1%2B2"
        #expect(redaction.redacted(text: text) == text)
    }

    @Test func thousandsOfHiddenValuesAreEachFound() {
        // A body listing many records, each with a token: every token is hidden everywhere.
        let tokens = (0..<20_000).map { "tok-\($0)-x" }
        let redaction = Redaction.none.hiding(tokens)
        let text = "a tok-19999-x b tok-7-x c tok-123-y d"
        #expect(redaction.redacted(text: text) == "a REDACTED b REDACTED c tok-123-y d")
    }

    @Test func theLongestValueWinsWhereValuesOverlap() {
        let redaction = Redaction.none.secret("abcd").secret("abcdefgh")
        #expect(redaction.redacted(text: "xabcdefghy abcdz") == "xREDACTEDy REDACTEDz")
    }

    @Test func customRulesRunOnEveryText() {
        let redaction = Redaction.none.custom { $0.replacingOccurrences(of: "tenant-7", with: "tenant-X") }
        #expect(redaction.redacted(url: "https://tenant-7.h/") == "https://tenant-X.h/")
        #expect(redaction.redacted(header: "X-Tenant", value: "tenant-7") == "tenant-X")
        #expect(redaction.redacted(body: Data("a tenant-7".utf8), contentType: nil) == Data("a tenant-X".utf8))
    }
}
