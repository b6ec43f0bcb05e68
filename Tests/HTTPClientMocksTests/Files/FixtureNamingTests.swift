import Foundation
import HTTPClient
import HTTPClientMocks
@_spi(Engine) import HTTPClientStubs
import Testing

@testable import HTTPClientStubs

@Suite("VOKMockData fixture names")
struct FixtureNamingTests {
    func names(
        _ method: String, _ url: String, contentType: String? = nil, body: String? = nil, wildcards: Bool = false
    ) -> [String] {
        let recorded = RecordedRequest(
            request(
                method, url, headers: contentType.map { ["Content-Type": $0] } ?? [:],
                body: body.map { Data($0.utf8) }))
        return FixtureNaming.candidates(for: recorded, wildcards: wildcards)
    }

    @Test func sha256MatchesTheStandardVectors() {
        #expect(SHA256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(String(repeating: "a", count: 1_000)) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    /// Lengths on each side of the padding's block boundaries (the length needs 9 bytes of the
    /// last block), a message of many blocks, and a body that is a slice of a larger buffer.
    @Test(arguments: [
        (55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        (56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        (63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
        (64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        (119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"),
        (120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"),
        (1_000_000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
    ])
    func sha256OfEveryLengthAroundABlockMatchesTheStandard(_ length: Int, _ digest: String) {
        #expect(SHA256.hex(String(repeating: "a", count: length)) == digest)
        let slice = (Data("xyz".utf8) + Data(repeating: UInt8(ascii: "a"), count: length)).dropFirst(3)
        #expect(SHA256.hex(slice) == digest)
    }

    @Test func theWorkedExample() {
        let bodyHash = SHA256.hex(#"{"abc":"def"}"#)
        let queryHash = SHA256.hex("baz=bat")
        #expect(
            names("POST", "https://h/foo/bar?baz=bat", contentType: "application/json", body: #"{"abc":"def"}"#) == [
                "POST|-foo-bar?baz=bat|d3-abc3-defe",
                "POST|-foo-bar?baz=bat|\(bodyHash)",
                "POST|-foo-bar?\(queryHash)|d3-abc3-defe",
                "POST|-foo-bar?\(queryHash)|\(bodyHash)",
            ])
    }

    @Test func thePathIsPercentDecodedWithoutTrailingSlash() {
        #expect(names("GET", "https://h/users/john%20doe/") == ["GET|-users-john doe"])
        #expect(names("GET", "https://h/") == ["GET|-"])
        #expect(names("GET", "https://h") == ["GET|-"])
    }

    @Test func theQueryIsRawThenHashed() {
        #expect(names("GET", "https://h/s?q=a%20b&x=1") == ["GET|-s?q=a%20b&x=1", "GET|-s?\(SHA256.hex("q=a%20b&x=1"))"])
    }

    @Test func onlyPostPutAndPatchHaveABodyPart() {
        let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        #expect(names("POST", "https://h/x") == ["POST|-x|\(emptyHash)"])
        #expect(names("PUT", "https://h/x", body: "raw") == ["PUT|-x|\(SHA256.hex("raw"))"])
        #expect(names("PATCH", "https://h/x", body: "raw").count == 1)
        #expect(names("DELETE", "https://h/x", body: "ignored") == ["DELETE|-x"])
        #expect(names("GET", "https://h/x", body: "ignored") == ["GET|-x"])
    }

    @Test func formBodiesAreUsedAsText() {
        #expect(
            names("POST", "https://h/login", contentType: "application/x-www-form-urlencoded; charset=utf-8", body: "user=ada&pw=1") == [
                "POST|-login|user=ada&pw=1", "POST|-login|\(SHA256.hex("user=ada&pw=1"))",
            ])
    }

    @Test func jsonBodiesAreBencodedWithSortedKeysThenPercentEncoded() {
        let body = #"{"z": [1, 2.9, true, false], "a": {"b": "x y"}, "é": "ü"}"#
        let first = names("POST", "https://h/j", contentType: "application/json", body: body).first
        // d 1:a d 1:b 3:x y e 1:z l i1e i2e i1e i0e e 1:é 1:ü e, keys by UTF-8 byte order;
        // lengths in UTF-16 code units, as VOKBenkode counts them (é and ü are one unit each).
        #expect(first == "POST|-j|d1-ad1-b3-x%20ye1-zli1ei2ei1ei0ee1-%C3%A91-%C3%BCe")
    }

    @Test func stringLengthsCountUTF16CodeUnitsLikeVOKBenkode() {
        // "😀" is 4 UTF-8 bytes but 2 UTF-16 code units; VOKBenkode writes 2.
        #expect(FixtureNaming.bencode(Data(#""😀""#.utf8)) == "2:😀")
        #expect(FixtureNaming.bencode(Data(#"{"ñ": 1}"#.utf8)) == "d1:ñi1ee")
    }

    @Test func jsonWithNullLeavesOnlyTheHash() {
        let body = #"{"a": null}"#
        #expect(names("POST", "https://h/j", contentType: "application/json", body: body) == ["POST|-j|\(SHA256.hex(body))"])
    }

    @Test func candidateOrderIsRawQueryThenHashedQueryTimesBodyTextThenHash() {
        let found = names("PUT", "https://h/p?a=1", contentType: "application/x-www-form-urlencoded", body: "k=v")
        let q = SHA256.hex("a=1")
        let b = SHA256.hex("k=v")
        #expect(found == ["PUT|-p?a=1|k=v", "PUT|-p?a=1|\(b)", "PUT|-p?\(q)|k=v", "PUT|-p?\(q)|\(b)"])
    }

    @Test func wildcardsComeLastAndOnlyWhenEnabled() {
        let q = SHA256.hex("a=1")
        let b = SHA256.hex("k=v")
        let both = names("POST", "https://h/p?a=1", contentType: "application/x-www-form-urlencoded", body: "k=v", wildcards: true)
        #expect(Array(both.dropFirst(4)) == ["POST|-p?a=1|*", "POST|-p?\(q)|*", "POST|-p?*|k=v", "POST|-p?*|\(b)", "POST|-p?*|*"])
        #expect(names("GET", "https://h/p?a=1", wildcards: true).last == "GET|-p?*")
        #expect(names("POST", "https://h/p", body: "x", wildcards: true).last == "POST|-p|*")
        #expect(!names("GET", "https://h/p?a=1").contains { $0.contains("*") })
    }

    @Test func namesOver250CharactersAreDroppedThenSlashesAndColonsBecomeDashes() {
        let longQuery = "q=" + String(repeating: "x", count: 260)
        #expect(names("GET", "https://h/a:b/c?\(longQuery)") == ["GET|-a-b-c?\(SHA256.hex(longQuery))"])
    }

    /// Found by the fuzzer: U+06DD joins the `:` after it into one `Character`, and a combining
    /// acute accent joins the `/` before it.
    @Test func separatorsInsideALargerGraphemeStillBecomeDashes() {
        for path in ["a%DB%9D:b", "a%DB%9D/b", "a/%CC%81b", "a:%CC%81b"] {
            for name in names("GET", "https://h/\(path)") {
                #expect(!name.utf8.contains(UInt8(ascii: "/")) && !name.utf8.contains(UInt8(ascii: ":")), "\(name)")
            }
        }
        #expect(names("GET", "https://h/a%DB%9D:b") == ["GET|-a\u{06DD}-b"])
    }

    @Test func theNameLimitCountsBytesAsFileSystemsDo() {
        // 200 characters but 400 bytes: too long for a file name, although short in characters.
        let path = String(repeating: "é", count: 200)
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        #expect(names("GET", "https://h/\(encoded)").isEmpty)
        #expect(names("GET", "https://h/\(String(repeating: "e", count: 200))") == ["GET|-\(String(repeating: "e", count: 200))"])
    }

    @Test func aMissWhoseNamesAreAllTooLongSaysSoInsteadOfAnEmptyList() {
        let miss = FixtureError.noFixture(folder: "Fixtures", triedFileNames: [])
        #expect(
            miss.description == "no file in Fixtures can answer this request: every name it could have is longer than 250 bytes, "
                + "which file systems do not allow; stub it in code instead")
    }

    @Test func aLargeJSONBodyIsNamedByItsHashAlone() {
        let body = "[" + (0..<50_000).map(String.init).joined(separator: ",") + "]"
        let found = names("POST", "https://h/import", contentType: "application/json", body: body)
        #expect(found == ["POST|-import|\(SHA256.hex(body))"])
    }

    @Test func duplicateMembersKeepTheirLastValueInTheBencodedName() {
        // A member first too long for a name, then replaced by a short one: the name exists.
        let body = #"{"a": ["# + String(repeating: "1,", count: 300) + #"1], "a": 2}"#
        #expect(names("POST", "https://h/x", contentType: "application/json", body: body).first == "POST|-x|d1-ai2ee")
    }
}
