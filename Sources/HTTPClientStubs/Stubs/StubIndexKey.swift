import HTTPClient

/// Where a registry files a stub it can find without scanning: by method (or any method) and
/// either an exact path or the fixed first segment of a template or prefix.
struct StubIndexKey: Hashable, Sendable {
    enum Route: Hashable, Sendable {
        case path(String)
        case firstSegment(String)
    }

    /// `nil` for a stub that takes any method.
    let method: HTTPMethod?
    let route: Route

    /// The keys a request can be filed under, most specific first.
    static func candidates(method: HTTPMethod, path: String, firstSegment: Substring) -> [StubIndexKey] {
        [
            StubIndexKey(method: method, route: .path(path)), StubIndexKey(method: nil, route: .path(path)),
            StubIndexKey(method: method, route: .firstSegment(String(firstSegment))),
            StubIndexKey(method: nil, route: .firstSegment(String(firstSegment))),
        ]
    }
}
