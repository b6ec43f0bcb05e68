import Foundation

extension MocktailFile {
    /// A method or URL pattern of a Mocktail file: a case-insensitive `NSRegularExpression`,
    /// searched anywhere in the value as OHHTTPStubs does.
    ///
    /// A pattern with nested repetition (`(a+)+`) can backtrack for longer than any test runs
    /// on a value that almost matches, and the URL comes from the code under test. So a search
    /// runs under a time budget (``searchBudget``): past it, the search is stopped and the file
    /// does not answer, and the unmatched report says which pattern ran out of time.
    struct Pattern: Sendable, CustomStringConvertible {
        /// Longer than a Mocktail author writes, short enough that compiling cannot run away.
        static let maximumLength = 8_192
        /// How long one search may run before it is stopped.
        static let searchBudget: TimeInterval = 0.5

        let description: String
        private let expression: NSRegularExpression

        /// Compiles line `line` of `file`; `name` ("method", "URL") says which pattern in errors.
        init(_ pattern: String, named name: String, file: String, line: Int) throws(FixtureError) {
            guard pattern.utf16.count <= Self.maximumLength else {
                throw .malformed(
                    file: file, line: line,
                    reason: "the \(name) pattern is \(pattern.utf16.count) characters long, over the limit of \(Self.maximumLength)")
            }
            do {
                expression = try NSRegularExpression(pattern: pattern, options: [.caseInsensitive])
            } catch {
                throw .malformed(
                    file: file, line: line,
                    reason: "the \(name) pattern \"\(pattern.prefix(80))\" is not a valid regular expression (ICU syntax, "
                        + "as NSRegularExpression reads it): check its brackets, parentheses and escapes")
            }
            description = pattern
        }

        /// Why `value` does not match, or `nil` when it does.
        func mismatch(_ value: String) -> String? {
            let deadline = Date().addingTimeInterval(Self.searchBudget)
            var found = false
            var outOfTime = false
            expression.enumerateMatches(
                in: value, options: [.reportProgress], range: NSRange(location: 0, length: value.utf16.count)
            ) { match, _, stop in
                if match != nil {
                    found = true
                    stop.pointee = true
                } else if Date() > deadline {
                    outOfTime = true
                    stop.pointee = true
                }
            }
            if found { return nil }
            if outOfTime {
                return "could not be searched with the pattern \(description) within \(Self.searchBudget) s, so the search "
                    + "was stopped (nested repetition such as (a+)+ backtracks without end): rewrite the pattern"
            }
            return "does not match the pattern \(description)"
        }
    }
}
