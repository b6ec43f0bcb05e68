import Foundation
import HTTPClient

/// Captures what a `@Sendable` completion handler received, so a test can read it afterwards.
///
/// Swift 6 does not let a `@Sendable` closure assign to a local `var`. With ``MockURLSession``
/// the completion has already run when the call returns, so no expectation is needed:
///
/// ```swift
/// let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()
/// client.get(url: url, completion: recorder.record)
/// let response = try #require(recorder.value).get()
/// ```
public final class CompletionRecorder<Value: Sendable>: Sendable {
    private let values = Locked<[Value]>([])

    /// An empty recorder.
    public init() {}

    /// Records one call. Pass it as the completion handler: `completion: recorder.record`.
    @Sendable public func record(_ value: Value) {
        values.withLock { $0.append(value) }
    }

    /// The value of the first call, or `nil` if the completion has not run.
    public var value: Value? { values.withLock { $0.first } }

    /// Every recorded value, in order.
    public var allValues: [Value] { values.current }

    /// How many times the completion ran.
    package var callCount: Int { values.withLock { $0.count } }
}
