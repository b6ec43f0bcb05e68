/// The order in which a registry tries the sources of an answer: the one definition every
/// transport follows (``StubRegistry`` resolves by it; the article "Stubbing and verification",
/// section "The order answers are tried in", explains it to users).
package enum AnswerOrder: CaseIterable, Sendable {
    /// Stubs registered on the registry, newest first: `stub(...)`, a fixture folder's stub
    /// (`serve`) and the stubs of a cassette (`replay`) alike.
    case stubs
    /// A `MockURLSession`'s answers queued with `enqueue`, oldest first, each once.
    case queued
    /// A `MockURLSession`'s `nextData`, `nextResponse` and `nextError`, while any is set.
    case canned
    /// Requests a `passThrough` condition lets through go to the pass-through session.
    case passThrough
    /// A `MockURLSession` made without a registry of yours answers 200 with an empty body.
    case defaultAnswer
    /// Nothing answered: the request fails with the unmatched report.
    case unmatched
}
