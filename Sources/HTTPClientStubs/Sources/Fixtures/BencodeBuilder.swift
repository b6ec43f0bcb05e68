import Foundation
import HTTPClient

/// Bencodes JSON while it is parsed (see ``FixtureNaming/bencode(_:limit:)``).
struct BencodeBuilder: JSONBuilder {
    enum Encoded {
        case text(String)
        /// `null`, a number out of range, or longer than the limit.
        case impossible
    }

    let limit: Int
    static var needsStrings: Bool { true }

    func null() -> Encoded { .impossible }
    func bool(_ value: Bool) -> Encoded { .text(value ? "i1e" : "i0e") }
    func integer(_ value: Int64) -> Encoded { .text("i\(value)e") }
    func number(_ value: Double) -> Encoded { abs(value) < 9.2e18 ? .text("i\(Int64(value))e") : .impossible }
    func string(_ value: String) -> Encoded { bounded("\(value.utf16.count):\(value)") }

    func makeItems() -> (text: String, isPossible: Bool) { ("l", true) }
    func append(_ value: Encoded, to items: inout (text: String, isPossible: Bool)) -> Bool {
        guard items.isPossible, case .text(let text) = value, items.text.utf8.count + text.utf8.count < limit else {
            items.isPossible = false
            return false
        }
        items.text += text
        return true
    }
    func array(_ items: (text: String, isPossible: Bool)) -> Encoded { items.isPossible ? bounded(items.text + "e") : .impossible }

    /// Every member, a repeated name keeping its last value: an early part that is too long may
    /// still be replaced.
    func makeMembers() -> [String: Encoded] { [:] }
    func set(_ name: String, _ value: Encoded, in members: inout [String: Encoded]) { members[name] = value }
    func object(_ members: [String: Encoded]) -> Encoded {
        var text = "d"
        for name in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            guard case .text(let value)? = members[name] else { return .impossible }
            text += "\(name.utf16.count):\(name)" + value
            guard text.utf8.count <= limit else { return .impossible }
        }
        return bounded(text + "e")
    }

    private func bounded(_ text: String) -> Encoded { text.utf8.count <= limit ? .text(text) : .impossible }
}
