import HTTPClient

/// Where a registry files its stubs, so that a request is tried only against the stubs that
/// could match it: by method (or any method) and the exact path with its exact query, the
/// exact path, or the leading segments a template or prefix fixes (``Key``); within each of
/// those, and among the stubs filed under no key, by a header or query value a stub requires
/// (``Bucket``).
///
/// A value type: it lives inside the registry's lock, with the stubs it files.
struct StubIndex: Sendable {
    /// Stubs found without scanning, in registration order.
    private var buckets: [Key: Bucket] = [:]
    /// How many of those buckets are by exact query: only then is a request's query parsed
    /// to find its bucket.
    private var queryBuckets = 0
    /// How many buckets are for any method: only then are a request's keys without a method
    /// looked up (each lookup hashes the path, and its query).
    private var anyMethodBuckets = 0
    /// Every other stub, in registration order.
    private var scanned = Bucket()
    /// The leading segments templates and prefixes are filed under, by number.
    private var leadingSegments = LeadingSegments()

    /// The index without its stubs. The numbers of leading segments are kept, so a removed
    /// stub's key never comes to mean another route.
    var emptied: StubIndex {
        var index = StubIndex()
        index.leadingSegments = leadingSegments
        return index
    }

    // MARK: Filing

    /// Where a stub of `method` and `target` is filed, and how many of its leading conditions
    /// (method, then path) the key decides, so that routing does not test them again.
    mutating func placement(of method: HTTPMethod?, _ target: StubTarget) -> (key: Key?, conditionsDecided: Int) {
        let path = target.path
        // A full URL with a query is filed under its exact query: a thousand query variants of
        // one path are a thousand buckets, not one bucket scanned newest first.
        let key: Key? =
            if let exact = path.exactPath {
                target.queryKey.map { Key(method: method, route: .pathAndQuery(exact, $0)) } ?? Key(method: method, route: .path(exact))
            } else if let leading = path.fixedLeadingSegments {
                Key(method: method, route: .leadingSegments(leadingSegments.number(of: leading)))
            } else {
                nil
            }
        // The key decides the method (it is part of the key), and the path when it is exact.
        let decided = key == nil ? 0 : (method == nil ? 0 : 1) + (path.exactPath == nil ? 0 : 1)
        return (key, decided)
    }

    /// Files `stub` under its key, or with the scanned ones.
    mutating func insert(_ stub: Stub) {
        guard let key = stub.indexKey else {
            scanned.insert(stub)
            return
        }
        if buckets[key] == nil {
            if key.isByQuery { queryBuckets += 1 }
            if key.method == nil { anyMethodBuckets += 1 }
        }
        buckets[key, default: Bucket()].insert(stub)
    }

    /// Takes `stub` out, wherever it is filed.
    mutating func remove(_ stub: Stub) {
        guard let key = stub.indexKey else {
            scanned.remove(stub)
            return
        }
        buckets[key]?.remove(stub)
        if buckets[key]?.isEmpty == true {
            buckets[key] = nil
            if key.isByQuery { queryBuckets -= 1 }
            if key.method == nil { anyMethodBuckets -= 1 }
        }
    }

    /// Files `stub` again after its conditions changed (a condition added later may file it
    /// under a value), if it is still filed.
    mutating func refile(_ stub: Stub) {
        if let key = stub.indexKey {
            if buckets[key]?.remove(stub) == true { buckets[key]?.insert(stub) }
        } else if scanned.remove(stub) {
            scanned.insert(stub)
        }
    }

    // MARK: Finding

    /// The stubs that could match `request`: those of the buckets for its method, path, query
    /// and leading segments (merged by id), and the scanned ones; in either, only the stubs
    /// that require no header or query value, or one the request carries.
    func candidates(for request: RecordedRequest) -> (indexed: [Bucket.Entry], scanned: [Bucket.Entry]) {
        let scanned = scanned.candidates(for: request)
        guard !buckets.isEmpty else { return ([], scanned) }
        let indexed = Bucket.gathered { add in
            forEachKey(for: request) { key in
                if let found = buckets[key]?.candidates(for: request) { add(found) }
            }
        }
        return (indexed, scanned)
    }

    /// The keys looked up for `request`: how many does not depend on the path's length.
    func keys(for request: RecordedRequest) -> [Key] {
        var keys: [Key] = []
        forEachKey(for: request) { keys.append($0) }
        return keys
    }

    /// Calls `body` with each of ``keys(for:)``.
    private func forEachKey(for request: RecordedRequest, _ body: (Key) -> Void) {
        Key.forEachCandidate(
            method: request.method, path: request.path, leadingSegments: leadingSegments.numbers(in: request.path),
            queryKey: queryBuckets > 0 ? request.queryKey : nil, anyMethod: anyMethodBuckets > 0, body)
    }

    /// Visits the two lists of ``candidates(for:)`` together, newest (highest id) first, until
    /// `body` returns true.
    static func forEachNewestFirst(
        _ candidates: (indexed: [Bucket.Entry], scanned: [Bucket.Entry]), _ body: (Bucket.Entry) -> Bool
    ) {
        let (indexed, scanned) = candidates
        var i = indexed.count - 1
        var s = scanned.count - 1
        while i >= 0 || s >= 0 {
            let stub: Bucket.Entry
            if s < 0 || (i >= 0 && indexed[i].id > scanned[s].id) {
                stub = indexed[i]
                i -= 1
            } else {
                stub = scanned[s]
                s -= 1
            }
            if body(stub) { return }
        }
    }
}
