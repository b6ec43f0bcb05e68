import Foundation
import HTTPClient
import LoopbackServer
import Testing

extension ServerSuites {
    /// A download that does not complete leaves nothing in the temporary directory, neither a
    /// file of this package's nor the session's own, and leaves the destination's previous file
    /// as it was. On Linux the session's is a known issue: corelibs' download tasks write
    /// `<UUID>.tmp` there and keep it when they fail or are cancelled.
    @Suite("A failed or cancelled download leaves no temporary file", .serialized)
    struct DownloadLeftoverTests {
        @Test(arguments: [false, true])
        func aCutShortDownloadLeavesNoTemporaryFile(reportsProgress: Bool) async throws {
            try await withServer { _, client in
                let destination = try Self.previousFile()
                defer { try? FileManager.default.removeItem(at: destination) }
                let before = try Self.temporaryFiles()
                let progress = Self.handler(if: reportsProgress) { _ in }

                await #expect(throws: HTTPClientError.self) {
                    try await client.download(.get("cut/1000"), to: destination, progress: progress)
                }

                try Self.expectNoNewTemporaryFile(since: before)
                #expect(try Data(contentsOf: destination) == Self.previousContents)
            }
        }

        @Test(arguments: [false, true])
        func aCancelledDownloadLeavesNoTemporaryFile(reportsProgress: Bool) async throws {
            try await withServer { server, client in
                let destination = try Self.previousFile()
                defer { try? FileManager.default.removeItem(at: destination) }
                let before = try Self.temporaryFiles()
                let (received, signal) = AsyncStream<Void>.makeStream()
                let progress = Self.handler(if: reportsProgress) { _ in signal.yield() }
                let download = Task { try await client.download(.get("events/0"), to: destination, progress: progress) }
                // With progress, once a part of the body is written; without, once the request
                // has reached the server (a download task makes its file before that).
                if reportsProgress {
                    var reports = received.makeAsyncIterator()
                    _ = await reports.next()
                } else {
                    await server.eventStreams.waitUntilStarted(1)
                }
                download.cancel()

                let error = await #expect(throws: HTTPClientError.self) { try await download.value }

                #expect(error?.isCancelled == true)
                try Self.expectNoNewTemporaryFile(since: before)
                #expect(try Data(contentsOf: destination) == Self.previousContents)
            }
        }

        /// Whether the session's download tasks keep their partial file when they fail: corelibs'
        /// do (it removes the file on no failure path), Apple's do not.
        #if os(Linux)
        static let sessionKeepsFailedDownloads = true
        #else
        static let sessionKeepsFailedDownloads = false
        #endif

        /// No download file in the temporary directory that was not in `before`. Known to fail
        /// where the session keeps its failed downloads: writing the body from `chunks(for:)`
        /// instead would fix it there, at the cost of holding in memory whatever the network
        /// delivers faster than the disk takes it (on Linux a data task cannot be paused:
        /// measured, a 1 GB download raised resident memory by 1.1 GB).
        static func expectNoNewTemporaryFile(since before: Set<String>) throws {
            let added = try temporaryFiles().subtracting(before)
            withKnownIssue("corelibs' download tasks keep their partial file when they fail") {
                #expect(added.isEmpty, "left behind: \(added.sorted())")
            } when: {
                sessionKeepsFailedDownloads
            }
            // What this test's download left is removed, so that runs do not pile files up.
            for name in added {
                try? FileManager.default.removeItem(atPath: (NSTemporaryDirectory() as NSString).appendingPathComponent(name))
            }
        }

        /// `handler` when the download reports progress, else none.
        static func handler(
            if reportsProgress: Bool, _ handler: @escaping @Sendable (TransferProgress) -> Void
        ) -> (@Sendable (TransferProgress) -> Void)? {
            reportsProgress ? handler : nil
        }

        static let previousContents = Data("the previous download\n".utf8)

        /// A destination that already holds a file.
        static func previousFile() throws -> URL {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("leftover-destination-\(UUID().uuidString)")
            try previousContents.write(to: file)
            return file
        }

        /// The download files in the temporary directory: the session's (`<UUID>.tmp`) and this
        /// package's (`HTTPClient-download-<UUID>.tmp`), others' files left out.
        static func temporaryFiles() throws -> Set<String> {
            let names = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
            return Set(
                names.filter { name in
                    guard name.hasSuffix(".tmp") else { return false }
                    let stem = name.dropLast(4)
                    let uuid = stem.hasPrefix("HTTPClient-download-") ? stem.dropFirst(20) : stem
                    return UUID(uuidString: String(uuid)) != nil
                })
        }
    }
}
