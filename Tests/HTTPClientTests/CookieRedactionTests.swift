import Foundation
import HTTPClient
import Testing

/// Cookie headers keep their names and `Set-Cookie` its attributes; every value is hidden.
@Suite("Cookie redaction")
struct CookieRedactionTests {
    let redaction = Redaction.standard

    func redacted(_ name: String, _ value: String) -> String? {
        redaction.redacted([name: value])[name]
    }

    @Test func aSetCookieKeepsItsNameAndAttributesAndHidesItsValue() {
        #expect(
            redacted("Set-Cookie", "sid=abc123; Path=/; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Secure; HttpOnly")
                == "sid=REDACTED; Path=/; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Secure; HttpOnly")
    }

    @Test func everyCookieOfAFoldedSetCookieHasItsValueHidden() {
        let folded = "a=first1; Path=/; Expires=Wed, 21 Oct 2015 07:28:00 GMT, b=second2; Domain=example.com, c=third3"
        let shown = redacted("Set-Cookie", folded) ?? ""
        #expect(shown == "a=REDACTED; Path=/; Expires=Wed, 21 Oct 2015 07:28:00 GMT, b=REDACTED; Domain=example.com, c=REDACTED")
        for value in ["first1", "second2", "third3"] { #expect(!shown.contains(value)) }
    }

    @Test func aCookieNamedLikeAnAttributeStillHasItsValueHidden() {
        #expect(redacted("Set-Cookie", "Path=s3cret; Path=/") == "Path=REDACTED; Path=/")
        #expect(redacted("Set-Cookie", "x=1, Domain=s3cret") == "x=REDACTED, Domain=REDACTED")
        #expect(redacted("Cookie", "path=s3cret; domain=t0ken") == "path=REDACTED; domain=REDACTED")
    }

    @Test func whatIsNotANameAndAValueIsHiddenWhole() {
        #expect(redacted("Set-Cookie", "justavalue") == "REDACTED")
        #expect(redacted("Set-Cookie", "=nameless; Path=/") == "REDACTED; Path=/")
        #expect(redacted("Cookie", "a=1; loose") == "a=REDACTED; REDACTED")
        #expect(redacted("Set-Cookie", "a=1; Unknown=s3cret; weird") == "a=REDACTED; Unknown=REDACTED; REDACTED")
    }

    @Test func aCookieHeaderKeepsItsNamesOnly() {
        #expect(redacted("Cookie", "sid=abc123; theme=dark") == "sid=REDACTED; theme=REDACTED")
    }

    @Test func otherHiddenHeadersAreStillHiddenWhole() {
        #expect(redacted("Authorization", "Bearer abc; Path=/") == "REDACTED")
    }
}
