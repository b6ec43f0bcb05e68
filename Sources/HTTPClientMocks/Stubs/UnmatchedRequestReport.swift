import Foundation
import HTTPClient

/// Why a request matched no stub: the request, the registered stubs closest first with the
/// reason each one failed, and a Swift snippet that would stub the request.
public struct UnmatchedRequestReport: Sendable, CustomStringConvertible {
    /// One registered stub and why it did not match.
    public struct Candidate: Sendable {
        public let stub: String
        public let location: CallSite
        public let reasons: [String]
        public let closeness: Double
    }

    public let request: RecordedRequest
    public let registryName: String
    /// Every registered stub, closest first.
    public let candidates: [Candidate]
    /// Paste-ready Swift that stubs this request.
    public let snippet: String

    /// How many candidates the text shows; the rest are counted.
    static let shownCandidates = 5

    init(request: RecordedRequest, registry: StubRegistry, stubs: [Stub]) {
        self.request = request
        registryName = registry.name
        candidates = stubs.reversed().map { stub in
            let evaluation = stub.matcher.evaluate(request)
            var reasons = evaluation.failures
            if evaluation.matched {
                reasons = ["matches, but is used up (\(stub.callCount) calls)"]
            }
            return Candidate(stub: stub.description, location: stub.location, reasons: reasons, closeness: evaluation.closeness)
        }
        .enumerated().sorted { ($0.element.closeness, -$0.offset) > ($1.element.closeness, -$1.offset) }.map(\.element)
        snippet = Self.snippet(for: request)
    }

    public var description: String {
        var lines = ["Unmatched request in \"\(registryName)\": no stub matches"]
        lines.append("  \(request.method) \(request.url.absoluteString)")
        for field in request.headers {
            lines.append("  \(field.name): \(Redaction.standard.displayValue(ofHeader: field.name, field.value))")
        }
        if !request.body.isEmpty {
            lines.append("  Body: \(RequestMatcher.excerpt(request.body))")
        }
        lines.append("")
        if candidates.isEmpty {
            lines.append("No stubs are registered.")
        } else {
            lines.append("Registered stubs, closest first:")
            for (number, candidate) in candidates.prefix(Self.shownCandidates).enumerated() {
                lines.append("  \(number + 1). \(candidate.stub)  (\(candidate.location))")
                lines += candidate.reasons.map { "     - \($0)" }
            }
            if candidates.count > Self.shownCandidates {
                lines.append("  … and \(candidates.count - Self.shownCandidates) more")
            }
        }
        lines.append("")
        lines.append("To stub it:")
        lines += snippet.split(separator: "\n").map { "  " + $0 }
        return lines.joined(separator: "\n")
    }

    static func snippet(for request: RecordedRequest) -> String {
        let method = [HTTPMethod.get, .post, .put, .patch, .delete, .head, .options].contains(request.method)
            ? ".\(request.method.rawValue.lowercased())" : "\"\(request.method.rawValue)\""
        var code = "stubs.stub(\(method), \(swiftLiteral(request.url.absoluteString)))"
        if !request.body.isEmpty {
            if let json = request.json {
                code += "\n    .matching(.jsonBody(raw: \(swiftLiteral(json.description))))"
            } else if let text = request.text {
                code += "\n    .matching(.body(\(swiftLiteral(text))))"
            }
        }
        code += "\n    .respond(.status(200))"
        return code
    }

    /// A string literal that needs no escaping: raw (`#"..."#`) when it contains quotes or
    /// backslashes.
    static func swiftLiteral(_ text: String) -> String {
        guard text.contains("\"") || text.contains("\\") else { return "\"\(text)\"" }
        var hashes = "#"
        while text.contains("\"\(hashes)") { hashes += "#" }
        return "\(hashes)\"\(text)\"\(hashes)"
    }
}

/// The error a transport delivers for a request that matched no stub. Its description is the
/// full ``UnmatchedRequestReport``.
public struct UnmatchedRequestError: Error, CustomStringConvertible, LocalizedError {
    public let report: UnmatchedRequestReport

    public var description: String { report.description }
    public var errorDescription: String? { report.description }
}
