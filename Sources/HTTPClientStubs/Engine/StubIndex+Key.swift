import HTTPClient

extension StubIndex {
    /// Where a stub that can be found without scanning is filed: by method (or any method) and
    /// an exact path with its exact query, an exact path, or the fixed leading segments of a
    /// template or prefix.
    struct Key: Hashable, Sendable {
        enum Route: Hashable, Sendable {
            /// An exact path and query (`QueryKey.query(in:)`): one bucket per query variant.
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
        ///   - anyMethod: Whether the registry has stubs filed for any method: without, the keys
        ///     with no method are left out (no bucket could answer them).
        ///   - body: Called with each key; they are not gathered, so a lookup allocates no list.
        static func forEachCandidate(
            method: HTTPMethod, path: String, leadingSegments: [Int], queryKey: String?, anyMethod: Bool, _ body: (Key) -> Void
        ) {
            func visit(_ route: Route) {
                body(Key(method: method, route: route))
                if anyMethod { body(Key(method: nil, route: route)) }
            }
            visit(.path(path))
            for leading in leadingSegments { visit(.leadingSegments(leading)) }
            if let queryKey { visit(.pathAndQuery(path, queryKey)) }
        }

        var isByQuery: Bool {
            if case .pathAndQuery = route { return true }
            return false
        }
    }
}
