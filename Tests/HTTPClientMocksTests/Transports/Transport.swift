import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// The three ways a test's stubs reach the code under test. The behaviour suites run on each
/// (`@Test(arguments: Transport.allCases)`), so a behaviour that drifts on one transport shows
/// as one failing column.
enum Transport: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// `MockURLSession(stubs:)`: in process, answered inside `resume()` (or on a timer, when it
    /// simulates latency).
    case mockSession
    /// A real `URLSession` through the stubs' URLProtocol (`stubs.makeURLSession()`).
    case urlProtocol
    /// A real `URLSession` against `StubServer(stubs)` over a loopback socket (``ServerSession``).
    case stubServer

    var testDescription: String { rawValue }

    /// An ephemeral configuration whose request timeout no test reaches: longer than every pause
    /// a stub of the suite makes, and than any wait of a loaded run between two steps of a test.
    /// With URLSession's 60 s default, a held answer or a paused stream that a test checks after
    /// a slow minute would have timed out (and counted as delivered) while the test was not
    /// looking. A request's own `timeoutInterval` (60 s unless set) applies as well: a test that
    /// looks at a request across a long pause gives it a long one too.
    static var patient: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 4 * 3600
        return configuration
    }

    /// The transports that answer inside the test's process, without a socket.
    static let inProcess: [Transport] = [.mockSession, .urlProtocol]

    /// A session answered by `stubs` through this transport. A server, when there is one, stops
    /// once the session and its tasks are gone.
    /// - Parameters:
    ///   - configuration: the session's configuration: its cookie storage, cache and timeouts
    ///     (the server's client takes only the timeout: see ``ServerSession``). By default
    ///     ``patient``: a test that checks a timeout sets its own.
    ///   - followsRedirects: `false` hands 3xx answers over as they are (a server's client never
    ///     follows: see ``documentedDifferences``).
    ///   - simulatesLatency: whether a `MockURLSession` waits out latency, pauses and throttling
    ///     as the other two always do; without it, it answers at once.
    func session(
        _ stubs: StubRegistry, configuration: URLSessionConfiguration = Transport.patient, followsRedirects: Bool = true,
        simulatesLatency: Bool = false
    ) throws -> any URLSessionProtocol {
        switch self {
        case .mockSession:
            MockURLSession(
                stubs: stubs, configuration: configuration, followsRedirects: followsRedirects, simulatesLatency: simulatesLatency)
        case .urlProtocol: stubs.makeURLSession(configuration: configuration, followsRedirects: followsRedirects)
        case .stubServer: try ServerSession(stubs, configuration: configuration)
        }
    }
}

// MARK: Documented differences

extension Transport {
    /// A behaviour that a transport has otherwise than the others, on purpose or because its
    /// platform allows nothing else.
    enum Behaviour: String, CaseIterable, Sendable {
        /// A 3xx answer is followed: each hop a recorded request, the last answer delivered.
        case redirects
        /// `Set-Cookie` is stored in the configuration's cookie storage, and stored cookies are sent.
        case cookies
        /// A `.cached()` answer is kept in the configuration's `URLCache` and served from it.
        case responseCache
        /// The body of an upload task reaches the stubs.
        case uploadBodies
        /// `download(for:)` delivers the body in a file.
        case downloadTasks
        /// A timeout of a fraction of a second is kept to that fraction.
        case subSecondTimeouts
        /// A stubbed error (`.error`, a held response failed, a streamed `.failure`) reaches the
        /// client as it is.
        case stubbedErrors
        /// A request the client cancels has left the stubs (a held response's list, a stream's
        /// feed) by the time the client has its error.
        case cancellation
        /// A response counts as delivered (`onDelivery`, `waitForDeliveries`) once the completion
        /// handler that got it has returned.
        case deliveryAfterTheCompletionHandler
        /// Each part of a streamed body (each data part, each throttled slice) reaches
        /// `chunks(for:)` as one chunk.
        case chunkBoundaries
        /// A reader of `chunks(for:)` slower than the body holds the sender back: at most a
        /// window (`ChunkStream.defaultWindow`) waits for it.
        case readerHoldsTheSenderBack
        /// A stub that cannot answer (a `.file` that cannot be read) fails the request with the
        /// typed error (`ResponseFileError`).
        case failuresToAnswer
        /// A request no stub matches fails with `UnmatchedRequestError`, the report inside.
        case unmatchedRequests
        /// A request that a pass-through lets through goes to the network.
        case passThrough
        /// A field a stub repeats (`X-Tag: a`, `x-tag: b`) arrives as one, its values joined
        /// (`a, b`), as Apple's URLSession joins repeated lines.
        case repeatedHeaderFields
        /// A held request waits for the test whatever its timeout.
        case heldRequestsIgnoreTimeouts
    }

    /// One behaviour that one transport has otherwise, and why.
    struct DocumentedDifference: Sendable {
        let behaviour: Behaviour
        let transport: Transport
        let reason: String
    }

    /// Every difference between the transports that is by design or by platform, each in one
    /// place, with its reason. A behaviour test that meets one of these expects the behaviour
    /// the entry describes on that transport; any other difference is drift.
    static let documentedDifferences: [DocumentedDifference] = [
        DocumentedDifference(
            behaviour: .redirects, transport: .stubServer,
            reason: """
                A server follows no redirect: a 3xx stub goes out as a 3xx answer, and following it is \
                the client's business, by the client's rules. Its client here follows none, so the 3xx \
                itself is what arrives, and the stubs see one request.
                """),
        DocumentedDifference(
            behaviour: .cookies, transport: .stubServer,
            reason: """
                A server keeps no cookies: each Set-Cookie goes out as a header line, and a request \
                carries the Cookie header its client gives it, nothing more. Storing and sending \
                cookies is the client's (corelibs applies almost none of RFC 6265); its client here \
                keeps none, so nothing is stored and no stored cookie is sent.
                """),
        DocumentedDifference(
            behaviour: .responseCache, transport: .stubServer,
            reason: """
                A server caches nothing: every request reaches the stubs, and a stub's answer goes \
                out as it is. A client's cache is the client's; its client here has none.
                """),
        DocumentedDifference(
            behaviour: .uploadBodies, transport: .urlProtocol,
            reason: """
                URLSession never hands an upload task's body to a URLProtocol (corelibs; reported \
                the same on Apple platforms, OHHTTPStubs#312): the request is recorded with its body \
                hidden, body conditions fail, and the report says why.
                """),
        DocumentedDifference(
            behaviour: .downloadTasks, transport: .urlProtocol,
            reason: """
                corelibs traps when a URLProtocol answers a download task, so the stubs fail it at \
                once with URLError(.unsupportedURL) saying to use MockURLSession (on Apple platforms \
                too, to behave alike).
                """),
        DocumentedDifference(
            behaviour: .subSecondTimeouts, transport: .stubServer,
            reason: """
                A server has no timeout to apply: the client keeps the clock, and corelibs truncates \
                a timeout to whole seconds, so one under a second times out at once. In whole \
                seconds it counts idle time, as the stubs' timeout does.
                """),
        DocumentedDifference(
            behaviour: .stubbedErrors, transport: .stubServer,
            reason: """
                An error cannot cross a socket: the server closes the connection (before the head: \
                no answer; mid-body: without the last chunk), and the client names that in its own \
                way (corelibs: badServerResponse without a head, networkConnectionLost or unknown \
                mid-body). What came before the cut is checked as on the others.
                """),
        DocumentedDifference(
            behaviour: .cancellation, transport: .stubServer,
            reason: """
                A server learns that a request was cancelled when its connection closes, a moment \
                after the client has its error: a test waits for that before it looks.
                """),
        DocumentedDifference(
            behaviour: .deliveryAfterTheCompletionHandler, transport: .urlProtocol,
            reason: """
                A URLProtocol hands the whole response to URLSession, which calls the completion \
                handler later, on its delegate queue: the stubs never see the handler, so a response \
                counts as delivered once the client has all of it, maybe before the handler has run.
                """),
        DocumentedDifference(
            behaviour: .deliveryAfterTheCompletionHandler, transport: .stubServer,
            reason: """
                A server sees its last byte written, never the client's completion handler: a \
                response counts as delivered then, maybe before the handler has run.
                """),
        DocumentedDifference(
            behaviour: .chunkBoundaries, transport: .stubServer,
            reason: """
                A socket carries bytes, not parts: the server writes each part as a chunk of its \
                own, but the client's chunk is what one read returns, so parts that come close \
                together may arrive joined. The bytes, their order and their timing are the server's.
                """),
        DocumentedDifference(
            behaviour: .readerHoldsTheSenderBack, transport: .urlProtocol,
            reason: """
                corelibs cannot pause a data task (suspend() does not stop one on Linux): the \
                stub's parts are handed over as they come, and the stream keeps what the reader \
                has not taken yet.
                """),
        DocumentedDifference(
            behaviour: .readerHoldsTheSenderBack, transport: .stubServer,
            reason: """
                corelibs cannot pause a data task (suspend() does not stop one on Linux), so it \
                reads the socket as fast as the server writes: the stream keeps what the reader \
                has not taken yet.
                """),
        DocumentedDifference(
            behaviour: .failuresToAnswer, transport: .stubServer,
            reason: """
                A server cannot send an error value: a stub that cannot answer is answered 500, \
                with the error (what is there instead of a file, or the system's reason) as a \
                plain-text body.
                """),
        DocumentedDifference(
            behaviour: .unmatchedRequests, transport: .stubServer,
            reason: """
                A server cannot send an error value: an unmatched request is answered 404 (the \
                configuration's unmatchedStatus) with the report as a plain-text body. The report \
                is the same, and it fails the test the same way.
                """),
        DocumentedDifference(
            behaviour: .passThrough, transport: .stubServer,
            reason: """
                A server has no upstream to forward to: a request a pass-through lets through is \
                answered 502, saying so.
                """),
        DocumentedDifference(
            behaviour: .repeatedHeaderFields, transport: .stubServer,
            reason: """
                The server writes each value of a repeated field on a line of its own, as HTTP \
                does; corelibs' client keeps each line under its own spelling (`X-Tag: a`, \
                `x-tag: b`), and value(forHTTPHeaderField:) gives one of them. Apple's joins them, \
                as HTTPClient's headers do on every transport.
                """),
        DocumentedDifference(
            behaviour: .heldRequestsIgnoreTimeouts, transport: .stubServer,
            reason: """
                The client keeps its own clock: a held answer that outlasts the request's timeout \
                times out there, and the server lets the exchange go when the connection closes.
                """),
    ]

    /// Whether this transport has `behaviour` otherwise than the others, as ``documentedDifferences`` says.
    func differs(in behaviour: Behaviour) -> Bool {
        Self.documentedDifferences.contains { $0.transport == self && $0.behaviour == behaviour }
    }
}

extension URLResponse {
    var status: Int? { (self as? HTTPURLResponse)?.statusCode }
}

/// Whether `condition` holds within `timeout`, asked again every few milliseconds: for what a
/// transport learns after the client has its answer (a server sees a cancelled request only when
/// its connection closes). The limit is one no slow run reaches; a condition that holds returns
/// at once.
func eventually(within timeout: Duration = .seconds(60), _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
