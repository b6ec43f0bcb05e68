import Foundation

/// When and how long to wait before sending a failed request again. Off unless configured on
/// the client (``HTTPClient/retryPolicy``) or a request (``HTTPClient/Request/retryPolicy``).
///
/// Only idempotent methods (GET, HEAD, PUT, DELETE, OPTIONS) are retried, unless the request
/// says it is safe to repeat (``HTTPClient/Request/isIdempotent``); an ``Interceptor``'s retries
/// are the interceptor's to decide. A `Retry-After` header, in
/// seconds or as an HTTP-date, replaces the backoff; every delay is capped by ``maximumDelay``.
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included: 3 means up to two retries.
    public var maximumAttempts: Int
    /// The delay before the first retry; each later retry multiplies it by ``multiplier``.
    public var initialDelay: TimeInterval
    /// What each retry's delay is multiplied by after the first (2 doubles it).
    public var multiplier: Double
    /// No delay, from backoff, `Retry-After` or an interceptor, is longer than this (nor than
    /// one day, whatever is set here).
    public var maximumDelay: TimeInterval
    /// Randomisation of each backoff delay: 0.2 picks a delay in 80...100 % of the computed one,
    /// so clients that failed together do not retry together.
    public var jitter: Double
    /// Statuses worth retrying.
    public var retryableStatusCodes: Set<Int>
    /// Transport errors worth retrying.
    public var retryableErrorCodes: Set<URLError.Code>
    /// Whether `Retry-After` is honoured.
    public var honorsRetryAfter: Bool

    /// - Parameters: see the properties. The defaults retry 408, 429, 500, 502, 503 and 504,
    ///   timeouts, lost connections and no connection; 3 attempts; 0.5 s doubling to 30 s.
    public init(
        maximumAttempts: Int = 3,
        initialDelay: TimeInterval = 0.5,
        multiplier: Double = 2,
        maximumDelay: TimeInterval = 30,
        jitter: Double = 0.2,
        retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504],
        retryableErrorCodes: Set<URLError.Code> = [.timedOut, .networkConnectionLost, .notConnectedToInternet],
        honorsRetryAfter: Bool = true
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialDelay = Self.safeDelay(initialDelay)
        self.multiplier = multiplier.isNaN ? 1 : max(1, multiplier)
        self.maximumDelay = Self.safeDelay(maximumDelay)
        self.jitter = jitter.isNaN ? 0 : min(max(0, jitter), 1)
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableErrorCodes = retryableErrorCodes
        self.honorsRetryAfter = honorsRetryAfter
    }

    /// The defaults: see ``init(maximumAttempts:initialDelay:multiplier:maximumDelay:jitter:retryableStatusCodes:retryableErrorCodes:honorsRetryAfter:)``.
    public static let standard = RetryPolicy()

    /// Never retries: use it to switch the policy's retries off for one request. An
    /// interceptor's retries (a token refresh) follow the interceptor's own
    /// ``Interceptor/maximumRetries``.
    public static let disabled = RetryPolicy(maximumAttempts: 1)

    // MARK: Deciding

    /// The delay before the next attempt, or `nil` to stop.
    ///
    /// - Parameters:
    ///   - result: The outcome of attempt number `attempt`.
    ///   - attempt: Which attempt `result` came from, 1 for the first.
    ///   - isIdempotent: Whether the request may be sent again.
    ///   - now: The current time, for HTTP-date `Retry-After` values.
    ///   - random: A number in `0...1` for jitter.
    func delay(
        after result: Result<HTTPClient.Response<Data>, HTTPClientError>, attempt: Int, isIdempotent: Bool,
        now: Date, random: Double
    ) -> TimeInterval? {
        guard isIdempotent, attempt < maximumAttempts else { return nil }
        switch result {
        case .success:
            return nil
        case .failure(let error):
            if let response = error.response {
                // A rejected status, whether the validation returned false or threw; never a
                // response that passed and could not be decoded.
                if case .decodingFailed = error { return nil }
                guard retryableStatusCodes.contains(response.statusCode) else { return nil }
                if honorsRetryAfter, let retryAfter = Self.retryAfter(response.headers["Retry-After"], now: now) {
                    return capped(retryAfter)
                }
            } else {
                guard let code = error.urlError?.code, retryableErrorCodes.contains(code) else { return nil }
            }
        }
        let backoff = capped(initialDelay * pow(multiplier, Double(attempt - 1)))
        let random = random.isNaN ? 0 : min(max(random, 0), 1)
        return Self.safeDelay(backoff * (1 - jitter * random))
    }

    // MARK: Bounding delays

    /// The longest any delay can be, whatever a policy, a server or an interceptor asks for:
    /// one day. Finite, so every delay converts to nanoseconds without overflow.
    static let longestDelay: TimeInterval = 86_400

    /// `seconds` as a delay this policy would wait: NaN and negatives become 0, and nothing
    /// exceeds ``maximumDelay`` (itself at most ``longestDelay``). Every delay the client waits,
    /// from backoff, `Retry-After` or an interceptor's ``RetryDecision/retryAfter(_:)``, passes here.
    func capped(_ seconds: TimeInterval) -> TimeInterval {
        min(Self.safeDelay(seconds), maximumDelay)
    }

    /// NaN and negatives as 0, infinity and anything longer than ``longestDelay`` as ``longestDelay``.
    static func safeDelay(_ seconds: TimeInterval) -> TimeInterval {
        seconds.isNaN ? 0 : min(max(seconds, 0), longestDelay)
    }

    /// Parses `Retry-After` (RFC 9110 §10.2.3): whole seconds, or an HTTP-date. Anything else,
    /// including negative numbers and dates that do not parse, gives `nil` (ignored).
    /// Its tests (`@testable`) read every form of the header through it.
    static func retryAfter(_ value: String?, now: Date) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.allSatisfy(\.isASCIIDigitCharacter) {
            return value.count <= 9 ? TimeInterval(value) : nil
        }
        guard let date = Timestamps.httpDate(value, now: now) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

extension Character {
    fileprivate var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
