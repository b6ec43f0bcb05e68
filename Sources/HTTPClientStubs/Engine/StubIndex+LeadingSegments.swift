import HTTPClient

extension StubIndex {
    /// The fixed leading segments of the registered templates and prefixes
    /// (``StubTarget/PathPattern/fixedLeadingSegments``), as a tree of segments: the ones a request's path
    /// starts with are found in one pass over the path, each segment hashed once. Listing every
    /// prefix of the path and looking each up cost time quadratic in the path's length (a 100 KB
    /// path of short segments took seconds).
    ///
    /// Each registered value has a number, which the index keys use: hashing it costs nothing,
    /// where hashing the prefix again would cost its length. Numbers are never reused, so a stub
    /// keeps its key for as long as it exists.
    struct LeadingSegments: Sendable {
        private struct Node: Sendable {
            var children: [Substring: Int] = [:]
            /// A registered value ends here.
            var isRegistered = false
        }

        /// Node 0 is the root: the empty segment before a path's leading `/`.
        private var nodes = [Node()]

        /// The number of `leading` (`/v1/users`), registered now if it is new.
        mutating func number(of leading: String) -> Int {
            var node = 0
            for segment in leading.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
                if let child = nodes[node].children[segment] {
                    node = child
                } else {
                    nodes.append(Node())
                    nodes[node].children[segment] = nodes.count - 1
                    node = nodes.count - 1
                }
            }
            nodes[node].isRegistered = true
            return node
        }

        /// The numbers of the registered values `path` starts with, shortest first. Only whole
        /// segments count, those a `/` follows: `/v1/users` is in `/v1/users/42`, not in `/v1/users`.
        func numbers(in path: String) -> [Int] {
            guard nodes.count > 1, path.utf8.first == UInt8(ascii: "/") else { return [] }
            var found: [Int] = []
            var node = 0
            var start = path.utf8.index(after: path.utf8.startIndex)
            while let slash = path.utf8[start...].firstIndex(of: UInt8(ascii: "/")) {
                guard let child = nodes[node].children[Substring(path)[start..<slash]] else { break }
                node = child
                if nodes[node].isRegistered { found.append(node) }
                start = path.utf8.index(after: slash)
            }
            return found
        }
    }
}
