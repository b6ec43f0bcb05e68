import HTTPClient

/// Where a registry files a stub it can find without scanning: by method (or any method) and
/// an exact path with its exact query, an exact path, or the fixed leading segments of a
/// template or prefix.
struct StubIndexKey: Hashable, Sendable {
    enum Route: Hashable, Sendable {
        /// An exact path and query (`RequestMatcher.queryKey`): one bucket per query variant.
        case pathAndQuery(String, String)
        case path(String)
        /// ``PathPattern/fixedLeadingSegments`` (`/v1/users` for `/v1/users/{id}`), by its
        /// number in the registry's ``LeadingSegmentIndex``.
        case leadingSegments(Int)
    }

    /// `nil` for a stub that takes any method.
    let method: HTTPMethod?
    let route: Route

    /// The keys a request can be filed under, most specific first: a number of them that does
    /// not grow with the path's length, each hashed in time linear in it at most.
    /// - Parameters:
    ///   - leadingSegments: The numbers of the registered leading segments the path starts with.
    ///   - queryKey: The request's query key, when the registry has stubs filed by query.
    static func candidates(method: HTTPMethod, path: String, leadingSegments: [Int], queryKey: String?) -> [StubIndexKey] {
        var keys = [StubIndexKey(method: method, route: .path(path)), StubIndexKey(method: nil, route: .path(path))]
        for leading in leadingSegments {
            let route = Route.leadingSegments(leading)
            keys += [StubIndexKey(method: method, route: route), StubIndexKey(method: nil, route: route)]
        }
        if let queryKey {
            keys += [
                StubIndexKey(method: method, route: .pathAndQuery(path, queryKey)),
                StubIndexKey(method: nil, route: .pathAndQuery(path, queryKey)),
            ]
        }
        return keys
    }

    var isByQuery: Bool {
        if case .pathAndQuery = route { return true }
        return false
    }
}
