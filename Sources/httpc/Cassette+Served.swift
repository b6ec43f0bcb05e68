import Foundation
import HTTPClient
import HTTPClientStubs

extension Cassette {
    /// The same recordings, answering at `base` instead of where they were recorded: a cassette
    /// recorded against `https://api.example.com` answers the same method, path and query sent to
    /// `httpc serve`. A `Location` that pointed back at a recorded origin points at `base`, so a
    /// client follows a recorded redirect to this server rather than to the real one.
    ///
    /// Every origin is moved, so two recorded hosts that used the same path answer as one (in
    /// recorded order). A URL that cannot be parsed is kept: replaying reports it.
    func served(at base: URL) -> Cassette {
        let origin = Self.origin(of: base.absoluteString) ?? base.absoluteString
        var recordedOrigins: Set<String> = []
        var served = self
        for index in served.interactions.indices {
            let url = served.interactions[index].request.url
            guard let recorded = Self.origin(of: url) else { continue }
            recordedOrigins.insert(recorded)
            served.interactions[index].request.url = origin + url.dropFirst(recorded.count)
        }
        for index in served.interactions.indices {
            for header in served.interactions[index].response.headers.indices
            where served.interactions[index].response.headers[header].name.caseInsensitiveEquals("Location") {
                let location = served.interactions[index].response.headers[header].value
                if let recorded = Self.origin(of: location), recordedOrigins.contains(recorded) {
                    served.interactions[index].response.headers[header].value = origin + location.dropFirst(recorded.count)
                }
            }
        }
        return served
    }

    /// `scheme://authority` of an absolute http(s) URL, as written in it (the text before the path).
    private static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", components.host?.isEmpty == false,
            let separator = url.range(of: "://")
        else { return nil }
        let authorityEnd = url[separator.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        return String(url[..<authorityEnd])
    }
}
