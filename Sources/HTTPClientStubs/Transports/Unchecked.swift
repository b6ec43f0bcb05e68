/// Hands a non-Sendable Foundation object to a background closure. Used only for URLProtocol
/// instances, whose client callbacks Foundation makes safe to call from any thread.
// @unchecked: URLProtocol is not Sendable; Foundation makes its client callbacks safe from any thread.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
