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

    @Test func aSetCookiesAttributesAreNotSecretsHiddenElsewhere() {
        let line = "sid=abc123; Domain=example.com; Path=/api; Expires=Wed, 21 Oct 2037 07:28:00 GMT; HttpOnly"
        let values = redaction.hiddenValues(url: nil, headers: ["Set-Cookie": line], body: nil, contentType: nil)
        #expect(values.contains("abc123"))
        for attribute in [
            "example.com", "/api", "Wed, 21 Oct 2037 07:28:00 GMT", "HttpOnly",
            "Path=/api; Expires=Wed, 21 Oct 2037 07:28:00 GMT; HttpOnly",
        ] {
            #expect(!values.contains(attribute), "\(attribute)")
        }
        let echoes = redaction.hiding(values)
        #expect(echoes.redacted(url: "https://api.example.com/api/users?sid=x") == "https://api.example.com/api/users?sid=REDACTED")
        #expect(
            echoes.redacted(["Set-Cookie": line])["Set-Cookie"]
                == "sid=REDACTED; Domain=example.com; Path=/api; Expires=Wed, 21 Oct 2037 07:28:00 GMT; HttpOnly")
    }

    @Test func aCookieValueIsStillHiddenWhereAServerEchoesIt() {
        let values = redaction.hiddenValues(
            url: nil, headers: ["Set-Cookie": "Path=s3cret-1; Path=/", "Cookie": "domain=t0ken-2"], body: nil, contentType: nil)
        #expect(redaction.hiding(values).redacted(text: "echo s3cret-1 t0ken-2") == "echo REDACTED REDACTED")
    }

    @Test func otherHiddenHeadersAreStillHiddenWhole() {
        #expect(redacted("Authorization", "Bearer abc; Path=/") == "REDACTED")
    }
}
