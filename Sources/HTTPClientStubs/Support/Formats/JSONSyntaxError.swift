// Written here, not taken from Foundation: the package has no dependencies, and `JSONDecoder`
// cannot walk a body without building it (see ``JSONParser``).

/// Why a text is not JSON, and the byte offset where that was found: what
/// `JSONValue(parsing:)` throws.
struct JSONSyntaxError: Error, CustomStringConvertible {
    let offset: Int
    let reason: String
    var description: String { "invalid JSON at byte \(offset): \(reason)" }
}
