import HTTPClient

extension StubIndex {
    /// The stubs filed under one key (one route, or every unindexed stub), in
    /// registration order. A stub whose conditions require a header or query value
    /// (``RequiredValue``) is filed again under that value, so a thousand variants of one route
    /// that differ by a header or a query item cost a lookup, not a scan.
    struct Bucket: Sendable {
        /// A stub with its conditions as they were when it was filed (it is filed again whenever
        /// they change), less those its bucket's key decides: routing tests them without taking
        /// each stub's lock.
        struct Entry: Sendable {
            let stub: Stub
            let matcher: RequestMatcher
            var id: Int { stub.id }
        }

        /// Stubs that require no value, by id.
        private var unfiled: [Entry] = []
        /// Stubs by the field and value they require, each list by id.
        private var filed: [RequiredValue.Field: [String: [Entry]]] = [:]
        /// Where each filed stub is, to take it out again.
        private var filing: [ObjectIdentifier: RequiredValue] = [:]
        private(set) var count = 0

        var isEmpty: Bool { count == 0 }

        /// Files `stub` under the first value its matcher requires, or with the unfiled ones.
        mutating func insert(_ stub: Stub) {
            count += 1
            let entry = Entry(stub: stub, matcher: stub.matcher.droppingLeadingConditions(stub.conditionsDecidedByIndex))
            guard let required = entry.matcher.requiredValues.first else {
                Self.insert(entry, into: &unfiled)
                return
            }
            filing[ObjectIdentifier(stub)] = required
            Self.insert(entry, into: &filed[required.field, default: [:]][required.value, default: []])
        }

        /// Takes `stub` out, wherever it is filed; `false` when it was not in the bucket.
        @discardableResult
        mutating func remove(_ stub: Stub) -> Bool {
            if let required = filing.removeValue(forKey: ObjectIdentifier(stub)) {
                filed[required.field]?[required.value]?.removeAll { $0.stub === stub }
                if filed[required.field]?[required.value]?.isEmpty == true { filed[required.field]?[required.value] = nil }
                if filed[required.field]?.isEmpty == true { filed[required.field] = nil }
                count -= 1
                return true
            }
            guard let index = unfiled.firstIndex(where: { $0.stub === stub }) else { return false }
            unfiled.remove(at: index)
            count -= 1
            return true
        }

        /// The stubs that can match `request`, by id: the unfiled ones, and those filed under a
        /// value the request carries.
        func candidates(for request: RecordedRequest) -> [Entry] {
            guard !filed.isEmpty else { return unfiled }
            return Self.gathered { add in
                add(unfiled)
                for (field, byValue) in filed {
                    RequiredValue.forEachValue(of: field, in: request) { value in
                        if let stubs = byValue[value] { add(stubs) }
                    }
                }
            }
        }

        /// The lists `visit` adds, merged into one ordered by id. Nearly always one list has
        /// entries: it is returned as it is, and lists are gathered and merged only when a
        /// second one has some.
        static func gathered(_ visit: (_ add: ([Entry]) -> Void) -> Void) -> [Entry] {
            var first: [Entry] = []
            var others: [[Entry]] = []
            visit { list in
                guard !list.isEmpty else { return }
                if first.isEmpty { first = list } else { others.append(list) }
            }
            return others.isEmpty ? first : merged([first] + others)
        }

        /// Lists ordered by id, merged into one ordered by id.
        static func merged(_ lists: [[Entry]]) -> [Entry] {
            let nonEmpty = lists.filter { !$0.isEmpty }
            guard nonEmpty.count > 1 else { return nonEmpty.first ?? [] }
            return nonEmpty.joined().sorted { $0.id < $1.id }
        }

        /// Inserts by id: usually at the end, earlier for a stub filed again after a new condition.
        private static func insert(_ entry: Entry, into list: inout [Entry]) {
            guard let last = list.last, last.id > entry.id else {
                list.append(entry)
                return
            }
            list.insert(entry, at: list.firstIndex { $0.id > entry.id } ?? list.endIndex)
        }
    }
}
