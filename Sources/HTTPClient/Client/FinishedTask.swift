import Foundation

/// The task returned when a request failed before it reached the session (an invalid URL, a
/// body that could not be encoded): its completion has already run, so there is nothing to do.
final class FinishedTask: URLSessionDataTaskProtocol {
    func resume() {}
    func cancel() {}
}
