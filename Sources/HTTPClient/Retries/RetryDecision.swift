import Foundation

/// What an ``Interceptor`` wants after an attempt.
public enum RetryDecision: Sendable, Equatable {
    /// Leave it to the next interceptor and then the retry policy.
    case doNotRetry
    /// Send the request again now.
    case retry
    /// Send the request again after `seconds` (waited through the client's scheduler), capped
    /// like every delay by the retry policy's ``RetryPolicy/maximumDelay`` (30 s without a
    /// policy); NaN and negatives mean now.
    case retryAfter(TimeInterval)
}
