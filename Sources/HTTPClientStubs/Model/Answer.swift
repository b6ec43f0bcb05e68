import Foundation
import HTTPClient

/// What the engine decided for one request, as what a server does over time: wait out the
/// latency, send the head, then the body's pieces with the pauses between them, and end, or
/// fail at a point. One immutable value, its times clamped once when it is made; every
/// transport plays it with ``AnswerPlayer``.
package struct Answer: Sendable {
    /// One moment of the timeline.
    package enum Step: Sendable {
        /// Nothing happens for this many seconds (finite, at least 0, at most 10⁹).
        case wait(TimeInterval)
        /// The response's head: status and headers (`fields`: the stub's own header lines, one
        /// per line, for a transport that writes them out; nil for a response that kept none).
        case head(URLResponse, fields: HTTPHeaders?)
        /// A piece of the body.
        case data(Data)
        /// The body is complete.
        case end
        /// The transfer breaks here (before the head: the request fails).
        case fail(any Error)
    }

    /// The steps, in order: waits, then the head (unless the request fails first), data and
    /// waits, then exactly one `end` or `fail`.
    package let steps: [Step]
    /// The last request sent (the redirect target, after redirects).
    package let request: URLRequest
    /// The stub of every hop with the request it answered, told once the answer is delivered.
    let answered: [(stub: Stub, request: RecordedRequest)]
    /// How a server writes the head and frames the body.
    package let wire: WireForm

    /// The answer of an exchange's delivery.
    init(_ delivery: Delivery) {
        request = delivery.request
        answered = delivery.answered
        wire = delivery.wire
        var steps: [Step] = []
        // Made once per request: sized up front, no closure over it.
        steps.reserveCapacity(delivery.parts.count + 4)
        Self.append(wait: delivery.latency, to: &steps)
        // A streamed failure comes after its head and parts; any other error means no response.
        if let response = delivery.response, delivery.error == nil || !delivery.parts.isEmpty {
            steps.append(.head(response, fields: delivery.headerFields))
            if delivery.parts.isEmpty {
                if let data = delivery.data, !data.isEmpty { steps.append(.data(data)) }
                steps.append(.end)
            } else {
                var ended = false
                for part in delivery.parts where !ended {
                    switch part {
                    case .data(let data): if !data.isEmpty { steps.append(.data(data)) }
                    case .pause(let seconds): Self.append(wait: seconds, to: &steps)
                    case .failure(let error):
                        steps.append(.fail(error))
                        ended = true
                    }
                }
                if !ended { steps.append(.end) }
            }
        } else {
            // The time the body would have taken before it failed (a body that went quiet past
            // the timeout fails when it went quiet).
            Self.append(wait: delivery.downloadTime, to: &steps)
            steps.append(.fail(delivery.error ?? URLError(.badServerResponse)))
        }
        self.steps = steps
    }

    /// Appends a wait of `seconds`, clamped here, once, for every transport (NaN and negatives
    /// are no wait, and no wait overflows), joined to a wait just before it.
    private static func append(wait seconds: TimeInterval, to steps: inout [Step]) {
        let clamped = seconds.isNaN ? 0 : min(max(0, seconds), 1e9)
        guard clamped > 0 else { return }
        if case .wait(let before) = steps.last {
            steps[steps.count - 1] = .wait(before + clamped)
        } else {
            steps.append(.wait(clamped))
        }
    }

    /// Tells each stub that answered that its response has been delivered: every transport calls
    /// it at the same moment, once the last step (`end` or `fail`) is handed to its consumer.
    package func noteDelivered() {
        for (stub, request) in answered { stub.noteDelivered(request) }
    }

    // MARK: The whole answer at once

    /// The response, when the request does not fail before it.
    package var response: URLResponse? {
        for step in steps {
            if case .head(let response, _) = step { return response }
        }
        return nil
    }

    /// The stub's own header lines, when it has them.
    package var headerFields: HTTPHeaders? {
        for step in steps {
            if case .head(_, let fields) = step { return fields }
        }
        return nil
    }

    /// How the answer ends for a caller of the whole body: the body, or the error (a transfer
    /// broken midway is only its error).
    package var completion: (data: Data?, response: URLResponse?, error: (any Error)?) {
        var response: URLResponse?
        // One piece (nearly every body) is handed over as it is: not copied.
        var body: Data?
        var joined = false
        for step in steps {
            switch step {
            case .wait: continue
            case .head(let head, _): response = head
            case .data(let data):
                if var whole = body {
                    if !joined { whole.reserveCapacity(whole.count + data.count) }
                    whole.append(data)
                    body = whole
                    joined = true
                } else {
                    body = data
                }
            case .end: return (body ?? Data(), response, nil)
            case .fail(let error): return (nil, nil, error)
            }
        }
        return (nil, nil, URLError(.badServerResponse))
    }

    /// Whether the body comes in more than one piece or over time: a transport that writes a
    /// length first, or hands the body over in one call, cannot give it so.
    package var isStreamed: Bool {
        var pieces = 0
        var headSeen = false
        for step in steps {
            switch step {
            case .head: headSeen = true
            case .wait where headSeen: return true
            case .data:
                pieces += 1
                if pieces > 1 { return true }
            case .fail where headSeen: return true
            default: continue
            }
        }
        return false
    }

    /// Seconds until the head (or the failure before it), and until the end.
    package var timing: (toHead: TimeInterval, toEnd: TimeInterval) {
        var elapsed: TimeInterval = 0
        var toHead: TimeInterval?
        for step in steps {
            switch step {
            case .wait(let seconds): elapsed += seconds
            case .head: toHead = toHead ?? elapsed
            case .fail: toHead = toHead ?? elapsed
            default: continue
            }
        }
        return (toHead ?? elapsed, elapsed)
    }
}
