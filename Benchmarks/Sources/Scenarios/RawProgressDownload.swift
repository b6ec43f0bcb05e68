import Foundation
import HTTPClient

/// What an app would write by hand to download with progress on `URLSession`: a session with a
/// delegate that counts `didWriteData` and moves the file. The baseline for
/// `HTTPClient.download(_:to:progress:)`, which pays the same per-chunk delegate cost.
public final class RawProgressDownload: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<URL, Never>?
    private var file: URL?
    public private(set) var reports = 0
    public lazy var session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)

    /// Downloads `url`, counting progress reports; returns the file.
    public func download(_ url: URL) async -> URL {
        await withCheckedContinuation { continuation in
            lock.withLock { self.continuation = continuation }
            session.downloadTask(with: url).resume()
        }
    }

    public func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {
        lock.withLock { reports += 1 }
    }

    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        let moved = FileManager.default.temporaryDirectory.appendingPathComponent("raw-progress-\(UUID().uuidString)")
        try? FileManager.default.moveItem(at: location, to: moved)
        lock.withLock { file = moved }
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, file) = lock.withLock { (self.continuation, self.file) }
        continuation?.resume(returning: file ?? URL(fileURLWithPath: "/dev/null"))
    }
}
