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

        /// The keys a request can be filed under, most specific first: a number of them that does
        /// not grow with the path's length, each hashed in time linear in it at most.
        /// - Parameters:
        ///   - leadingSegments: The numbers of the registered leading segments the path starts with.
        ///   - queryKey: The request's query key, when the registry has stubs filed by query.
        static func candidates(method: HTTPMethod, path: String, leadingSegments: [Int], queryKey: String?) -> [Key] {
            var keys = [Key(method: method, route: .path(path)), Key(method: nil, route: .path(path))]
            for leading in leadingSegments {
                let route = Route.leadingSegments(leading)
                keys += [Key(method: method, route: route), Key(method: nil, route: route)]
            }
            if let queryKey {
                keys += [
                    Key(method: method, route: .pathAndQuery(path, queryKey)),
                    Key(method: nil, route: .pathAndQuery(path, queryKey)),
                ]
            }
            return keys
        }

        var isByQuery: Bool {
            if case .pathAndQuery = route { return true }
            return false
        }
    }
}
