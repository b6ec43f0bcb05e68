import Foundation
import HTTPClient

extension Cassette {
    /// The same recordings, answering at `base` (a server's address) instead of where they were
    /// recorded: a cassette recorded against `https://api.example.com` answers the same method,
    /// path and query sent to `httpc serve`. A `Location` that pointed back at a recorded origin
    /// points at `base`, so a client follows a recorded redirect to this server rather than to
    /// the real one.
    ///
    /// Every origin is moved, so two recorded hosts that used the same path answer as one (in
    /// recorded order). A URL that cannot be parsed is kept: replaying reports it.
    ///
    /// - Parameters:
    ///   - base: The server's address.
    ///   - upstream: The URL the exchanges were recorded through (a server's upstream), when they
    ///     were: its path is the server's root (`https://api.example.com/v2/users` answers
    ///     `/users`), and only URLs under it move.
    package func served(at base: URL, recordedThrough upstream: URL? = nil) -> Cassette {
        let origin = Self.origin(of: base.absoluteString) ?? base.absoluteString
        let move: (String) -> String?
        if let upstream {
            let root = UpstreamRoot(upstream)
            move = { url in root.remainder(of: url).map { origin + $0 } }
        } else {
            var recordedOrigins: Set<String> = []
            for interaction in interactions {
                if let recorded = Self.origin(of: interaction.request.url) { recordedOrigins.insert(recorded) }
            }
            move = { url in
                guard let recorded = Self.origin(of: url), recordedOrigins.contains(recorded) else { return nil }
                return origin + url.dropFirst(recorded.count)
            }
        }
        var served = self
        for index in served.interactions.indices {
            if let moved = move(served.interactions[index].request.url) { served.interactions[index].request.url = moved }
            for header in served.interactions[index].response.headers.indices
            where served.interactions[index].response.headers[header].name.caseInsensitiveEquals("Location") {
                if let moved = move(served.interactions[index].response.headers[header].value) {
                    served.interactions[index].response.headers[header].value = moved
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

/// An upstream's URL as the root of a server that forwards to it: `https://api.example.com/v2`
/// makes `/users?page=2` at the server `https://api.example.com/v2/users?page=2` upstream, and
/// the other way round.
struct UpstreamRoot: Sendable {
    /// The upstream's URL without a trailing `/`.
    let prefix: String

    init(_ upstream: URL) {
        var prefix = upstream.absoluteString
        while prefix.hasSuffix("/") { prefix.removeLast() }
        self.prefix = prefix
    }

    /// The upstream URL of `target` (a path, with its query), as a server received it.
    func url(of target: String) -> String {
        prefix + (target.hasPrefix("/") ? target : "/" + target)
    }

    /// What follows the root in `url` (`/users?page=2`, or `/` for the root itself), when `url`
    /// is under it (compared case-insensitively).
    func remainder(of url: String) -> String? {
        let value = url.trimmingCharacters(in: .whitespaces)
        guard value.count >= prefix.count, value.prefix(prefix.count).lowercased() == prefix.lowercased() else { return nil }
        let rest = value.dropFirst(prefix.count)
        guard let first = rest.first else { return "/" }
        switch first {
        case "/": return String(rest)
        case "?", "#": return "/" + rest
        default: return nil
        }
    }
}
