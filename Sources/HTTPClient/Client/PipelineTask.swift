import Foundation

/// The task returned by the completion API when a request runs through the pipeline: it
/// cancels the whole loop, waiting included.
final class PipelineTask: URLSessionDataTaskProtocol {
    private let task: Task<Void, Never>

    init(_ task: Task<Void, Never>) {
        self.task = task
    }

    func resume() {}

    func cancel() {
        task.cancel()
    }
}
