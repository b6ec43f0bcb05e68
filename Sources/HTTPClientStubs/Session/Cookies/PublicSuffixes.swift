/// Domains under which anyone can register a name, for which no cookie may be set: a cookie
/// for `co.uk` would reach every British company. Every single-label domain (a top-level
/// domain such as `com`, or `localhost` from another host) counts; of the multi-label public
/// suffixes only the common ones below are known. This list is partial, on purpose: the
/// full Public Suffix List has about 10,000 entries and changes weekly, and a stub cookie
/// that a real browser would refuse for an unlisted suffix is a test bug, not a risk.
enum PublicSuffixes {
    static let multiLabel: Set<String> = [
        // Second-level country domains.
        "co.uk", "org.uk", "ac.uk", "gov.uk", "me.uk", "net.uk", "ltd.uk", "plc.uk", "sch.uk",
        "com.au", "net.au", "org.au", "edu.au", "gov.au", "id.au",
        "co.nz", "org.nz", "net.nz", "govt.nz", "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp",
        "co.kr", "or.kr", "com.cn", "net.cn", "org.cn", "gov.cn", "com.hk", "com.tw", "com.sg",
        "co.in", "net.in", "org.in", "gov.in", "co.za", "org.za", "gov.za", "co.il", "org.il",
        "com.br", "net.br", "org.br", "gov.br", "com.mx", "org.mx", "com.ar", "com.tr", "gov.tr",
        "com.ru", "com.ua", "com.pl", "co.id", "or.id", "com.my", "com.ph", "com.vn", "co.th",
        // Hosting platforms whose customers get subdomains.
        "github.io", "gitlab.io", "herokuapp.com", "appspot.com", "blogspot.com", "netlify.app",
        "vercel.app", "pages.dev", "workers.dev", "web.app", "firebaseapp.com", "azurewebsites.net",
        "cloudfront.net", "s3.amazonaws.com", "fly.dev", "onrender.com", "glitch.me",
    ]

    /// Whether `domain` (lower case, no leading dot) is a public suffix as far as this list knows.
    static func isPublicSuffix(_ domain: String) -> Bool {
        !domain.contains(".") || multiLabel.contains(domain)
    }
}
