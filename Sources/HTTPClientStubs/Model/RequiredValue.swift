import Foundation

/// A value a condition cannot pass without: a header's (name lower-cased, repeated fields
/// joined as ``HTTPHeaders`` joins them) or one query item's (name and value as their
/// ``QueryKey`` spells them, so the index tells apart exactly what the condition does). A
/// registry files a stub under one of these, so a request is tried only against the stubs whose
/// value it carries.
struct RequiredValue: Hashable, Sendable {
    enum Field: Hashable, Sendable {
        case header(String)
        case queryItem(String)
    }

    let field: Field
    let value: String

    /// The query item whose key is `pair`; a bare name requires an empty value, which a bare
    /// name in the request gives too (the condition then tells the two apart, or not).
    static func queryItem(_ pair: String) -> RequiredValue {
        let (name, value) = QueryKey.nameAndValue(of: pair)
        return RequiredValue(field: .queryItem(String(name)), value: String(value))
    }

    /// Calls `body` with each value `request` carries for `field` (each once): the stubs
    /// filed under any of them are the only ones of that field it can match. A header has
    /// one value at most, handed over without a list.
    static func forEachValue(of field: Field, in request: RecordedRequest, _ body: (String) -> Void) {
        switch field {
        case .header(let name):
            if let value = request.headerValue(lowercasedName: name) { body(value) }
        case .queryItem(let name):
            var values: [String] = []
            for pair in request.queryPairKeys {
                let parts = QueryKey.nameAndValue(of: pair)
                guard parts.name == name else { continue }
                let value = String(parts.value)
                if !values.contains(value) { values.append(value) }
            }
            values.forEach(body)
        }
    }
}
