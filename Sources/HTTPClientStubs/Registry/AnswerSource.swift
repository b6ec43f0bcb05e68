import Foundation

/// Where the answer to a request came from, kept on each request in a stub's ``Stub/calls``
/// (``RecordedRequest/answerSource``): a stub's own responses, a file read for the request (a
/// fixture folder's), or one interaction of a recording (a cassette's).
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

    public var description: String {
        switch self {
        case .stub: "a stub"
        case .file(let file): "the file \(file.path)"
        case .recording(let interaction, let file?): "interaction \(interaction + 1) of \(file.path)"
        case .recording(let interaction, nil): "recorded interaction \(interaction + 1)"
        }
    }
}
