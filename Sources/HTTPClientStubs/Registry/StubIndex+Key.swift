import HTTPClient

extension StubIndex {
    /// Where a stub that can be found without scanning is filed: by method (or any method) and
    /// an exact path with its exact query, an exact path, or the fixed leading segments of a
    /// template or prefix.
    struct Key: Hashable, Sendable {
        enum Route: Hashable, Sendable {
            /// An exact path and query (`RequestMatcher.queryKey`): one bucket per query variant.
            case pathAndQuery(String, String)
            case path(String)
            /// ``StubTarget/PathPattern/fixedLeadingSegments`` (`/v1/users` for `/v1/users/{id}`), by its
            /// number in the index's ``LeadingSegments``.
            case leadingSegments(Int)
        }

        /// `nil` for a stub that takes any method.
        let method: HTTPMethod?
        let route: Route

        /// Visits the keys a request can be filed under: a number of them that does
        /// not grow with the path's length, each hashed in time linear in it at most.
        /// - Parameters:
        ///   - leadingSegments: The numbers of the registered leading segments the path starts with.
        ///   - queryKey: The request's query key, when the registry has stubs filed by query.
        ///   - body: Called with each key; they are not gathered, so a lookup allocates no list.
        static func forEachCandidate(
            method: HTTPMethod, path: String, leadingSegments: [Int], queryKey: String?, _ body: (Key) -> Void
        ) {
            body(Key(method: method, route: .path(path)))
            body(Key(method: nil, route: .path(path)))
            for leading in leadingSegments {
                let route = Route.leadingSegments(leading)
                body(Key(method: method, route: route))
                body(Key(method: nil, route: route))
            }
            if let queryKey {
                body(Key(method: method, route: .pathAndQuery(path, queryKey)))
                body(Key(method: nil, route: .pathAndQuery(path, queryKey)))
            }
        }

        var isByQuery: Bool {
            if case .pathAndQuery = route { return true }
            return false
        }
    }
}
