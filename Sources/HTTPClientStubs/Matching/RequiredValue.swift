import Foundation

/// A value a condition cannot pass without: a header's (name lower-cased, repeated fields
/// joined as ``HTTPHeaders`` joins them) or one query item's. A registry files a stub under
/// one of these, so a request is tried only against the stubs whose value it carries.
struct RequiredValue: Hashable, Sendable {
    enum Field: Hashable, Sendable {
        case header(String)
        case queryItem(String)
    }

    let field: Field
    let value: String

    /// Calls `body` with each value `request` carries for `field` (each once): the stubs
    /// filed under any of them are the only ones of that field it can match. A header has
    /// one value at most, handed over without a list.
    static func forEachValue(of field: Field, in request: RecordedRequest, _ body: (String) -> Void) {
        switch field {
        case .header(let name):
            if let value = request.headerValue(lowercasedName: name) { body(value) }
        case .queryItem(let name):
            var values: [String] = []
            for item in request.queryItems where item.name == name {
                let value = item.value ?? ""
                if !values.contains(value) { values.append(value) }
            }
            values.forEach(body)
        }
    }
}
