import Foundation

/// Where the answer to a request came from, kept on each request the registry recorded (its
/// ``StubRegistry/requests`` and a stub's ``Stub/calls``, as ``RecordedRequest/answerSource``):
/// a stub's own responses, a file read for the request (a fixture folder's), one interaction of
/// a recording (a cassette's), or the network (a pass-through).
///
/// ```swift
/// if case .file(let file) = folder.calls.last?.answerSource { print("answered from", file.lastPathComponent) }
/// ```
public enum AnswerSource: Sendable, Hashable, CustomStringConvertible {
    /// The responses given to the stub in code.
    case stub
    /// The file read to answer the request.
    case file(URL)
    /// Interaction `interaction` (from 0, in recorded order) of a recording, read from `file`
    /// when it came from one.
    case recording(interaction: Int, file: URL?)
    /// The real network: the request matched no stub and a ``StubRegistry/passThrough(_:)``
    /// let it through (a recording cassette's upstream included).
    case passThrough

    public var description: String {
        switch self {
        case .stub: "a stub"
        case .file(let file): "the file \(file.path)"
        case .recording(let interaction, let file?): "interaction \(interaction + 1) of \(file.path)"
        case .recording(let interaction, nil): "recorded interaction \(interaction + 1)"
        case .passThrough: "the network (a pass-through)"
        }
    }
}
