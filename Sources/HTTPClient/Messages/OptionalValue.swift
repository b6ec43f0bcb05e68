/// What the client needs to know of an `Optional` it meets as a generic value: a response type
/// `User?` reads an empty body as `nil`, and a JSON body that is a nil optional is no body at all
/// (what kean/Get's users expect of both). Internal: `Optional` is the only conforming type.
protocol OptionalValue {
    /// `nil`, as a value of the optional type.
    static var absent: Self { get }
    /// Whether this is `nil` (at the top level only: `.some(nil)` of a `User??` is not).
    var isAbsent: Bool { get }
}

extension Optional: OptionalValue {
    static var absent: Self { nil }
    var isAbsent: Bool { self == nil }
}
