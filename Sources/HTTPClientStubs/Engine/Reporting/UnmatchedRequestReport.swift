import Foundation
import HTTPClient

/// Why a request matched no stub: the request, the registered stubs closest first with the
/// reason each one failed, and a Swift snippet that would stub the request.
///
/// The text hides what the registry's redaction (its initialiser's `redaction:`) hides, wherever it appears
/// (the request, the reasons, the snippet, which keeps parameter names with placeholder
/// values), and shows at most 2 KB of the body, with its full size.
public struct UnmatchedRequestReport: Sendable, CustomStringConvertible {
    /// One registered stub and why it did not match.
    package struct Candidate: Sendable {
        /// The stub, as reports name it.
        package let stub: String
        /// Where the stub was declared.
        package let location: CallSite
        /// Why it did not match, one reason per failed condition.
        package let reasons: [String]
        /// How near it came, 0...1 (the share of its conditions that passed).
        package let closeness: Double
    }

    /// The request no stub answered.
    public let request: RecordedRequest
    /// The registry that saw it.
    package let registryName: String
    /// Every registered stub, closest first (the report's ``description`` lists them).
    package let candidates: [Candidate]
    /// Paste-ready Swift that stubs this request.
    package let snippet: String

    /// How many candidates the text shows; the rest are counted.
    static let shownCandidates = 5
    /// How much of the body the text and the snippet show.
    package static let bodyLimit = 2048
    /// What the text hides: the registry's rules, and every value they hide in this request.
    private let redaction: Redaction
    /// The body as shown: redacted, at most ``bodyLimit`` bytes; `nil` when it is binary.
    private let shownBody: TextExcerpt?

    /// - Parameter scenarioStates: The states of the registry's scenarios that decided the miss.
    init(request: RecordedRequest, registry: StubRegistry, stubs: [Stub], scenarioStates: [String: Scenario.State]) {
        self.request = request
        registryName = registry.name
        let contentType = request.headers["Content-Type"]
        redaction = registry.redaction.hidingTheCredentials(of: request)
        // Redacting a window a little wider than what is shown keeps the cost bounded and
        // still hides a value that straddles the cut.
        let window = request.body.prefix(Self.bodyLimit * 4)
        shownBody =
            request.body.isEmpty ? nil : TextExcerpt(redaction.redacted(body: window, contentType: contentType), limit: Self.bodyLimit)
        candidates = stubs.reversed().map { stub in
            let evaluation = stub.matcher.evaluate(request)
            var reasons = evaluation.failures
            if evaluation.matched {
                // It matched and did not answer: its scenario was in another state, or it is used up.
                reasons = stub.scenarioMiss(in: scenarioStates).map { [$0] } ?? []
                if reasons.isEmpty || stub.isExhausted { reasons.append("matches, but is used up (\(stub.callCount) calls)") }
            }
            return Candidate(stub: stub.description, location: stub.location, reasons: reasons, closeness: evaluation.closeness)
        }
        .enumerated().sorted { ($0.element.closeness, -$0.offset) > ($1.element.closeness, -$1.offset) }.map(\.element)
        snippet = Self.snippet(
            method: request.method, url: redaction.redacted(url: request.url.absoluteString),
            body: request.body.count <= Self.bodyLimit ? shownBody?.text : nil, bodySize: request.body.count,
            isJSON: request.body.count <= Self.bodyLimit && request.json != nil)
    }

    /// Where the stub closest to matching was declared, if any stub had something in common
    /// with the request: failures are reported there, next to what most likely needs fixing.
    package var nearestStubLocation: CallSite? {
        candidates.first.flatMap { $0.closeness > 0 ? $0.location : nil }
    }

    /// Why nothing matched, on one line for a log (a ``StubServer``'s): the closest stub and its
    /// reasons, hidden as in ``description``.
    package var summary: String {
        guard let closest = candidates.first else { return "no stub matched: no stubs are registered" }
        let reasons = closest.reasons.joined(separator: "; ").split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        return redaction.redacted(text: "no stub matched; closest, \(closest.stub): \(reasons)")
    }

    public var description: String {
        var lines = ["Unmatched request in \"\(registryName)\": no stub matches"]
        lines.append("  \(request.method) \(redaction.redacted(url: request.url.absoluteString))")
        for field in request.headers {
            lines.append("  \(field.name): \(redaction.redacted(header: field.name, value: field.value))")
        }
        if !request.body.isEmpty {
            if let shownBody {
                let more = shownBody.isTruncated ? "… (\(request.body.count) bytes in all)" : ""
                lines.append("  Body: \"\(shownBody.text)\"\(more)")
            } else {
                lines.append("  Body: <\(request.body.count) bytes of binary data>")
            }
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
        return redaction.redacted(text: lines.joined(separator: "\n"))
    }

    /// Swift that stubs a request like this one. `body` is the redacted body text to match, or
    /// `nil` when it is binary or too long to paste (then a comment says so).
    static func snippet(method: HTTPMethod, url: String, body: String?, bodySize: Int, isJSON: Bool) -> String {
        let method =
            [HTTPMethod.get, .post, .put, .patch, .delete, .head, .options].contains(method)
            ? ".\(method.rawValue.lowercased())" : "\"\(method.rawValue)\""
        var code = "stubs.stub(\(method), \(swiftLiteral(url)))"
        if let body {
            code += isJSON ? "\n    .matching(.jsonBody(raw: \(swiftLiteral(body))))" : "\n    .matching(.body(\(swiftLiteral(body))))"
        } else if bodySize > 0 {
            code += "\n    // The body (\(bodySize) bytes) is not shown: match it with .body(_:) or .jsonBody(containing:)."
        }
        code += "\n    .respond(.status(200))"
        return code
    }

    /// A string literal for `text` that compiles: raw (`#"..."#`) when it holds quotes or
    /// backslashes, so JSON stays readable; escaped when it holds line breaks or other control
    /// characters, which a one-line literal cannot hold as they are.
    static func swiftLiteral(_ text: String) -> String {
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "\"" + text.unicodeScalars.map(escaped).joined() + "\""
        }
        guard text.contains("\"") || text.contains("\\") else { return "\"\(text)\"" }
        var hashes = "#"
        while text.contains("\"\(hashes)") || text.contains("\\\(hashes)") { hashes += "#" }
        return "\(hashes)\"\(text)\"\(hashes)"
    }

    private static func escaped(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": "\\n"
        case "\r": "\\r"
        case "\t": "\\t"
        case "\"": "\\\""
        case "\\": "\\\\"
        case _ where scalar.properties.generalCategory == .control: "\\u{\(String(scalar.value, radix: 16))}"
        default: String(scalar)
        }
    }
}
