import Foundation
import HTTPClient
import LoopbackServer
import Testing

extension ServerSuites {
    /// 1 GB each way over loopback through `HTTPClient` and a real `URLSession`: the body goes
    /// between the network and the disk, never whole into memory. The memory bound here is loose
    /// (what a test can check in a shared process); BENCHMARKS.md holds the tight targets.
    @Suite("A gigabyte each way, to and from files", .serialized, .timeLimit(.minutes(5)))
    struct LargeTransferTests {
        static let size = 1 << 30
        /// Far below the body: a download held in memory would pass it several times over.
        static let memoryBound = 128 << 20

        @Test func aGigabyteDownloadsToAFileInBoundedMemory() async throws {
            try await withServer { _, client in
                let destination = FileManager.default.temporaryDirectory.appendingPathComponent("large-download-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: destination) }
                let watch = TransferWatch()

                let file = try await client.download(.get("bytes/\(Self.size)"), to: destination) { watch.note($0) }

                #expect(file.head.statusCode == 200)
                #expect(try destination.resourceValues(forKeys: [.fileSizeKey]).fileSize == Self.size)
                #expect(try Self.samplesMatchThePattern(destination))
                #expect(watch.last == TransferProgress(bytes: Int64(Self.size), expectedBytes: Int64(Self.size)))
                #expect(watch.rise < Self.memoryBound, "resident memory rose by \(watch.rise >> 20) MiB")
            }
        }

        @Test func aGigabyteUploadsFromAFileInBoundedMemory() async throws {
            let source = FileManager.default.temporaryDirectory.appendingPathComponent("large-upload-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: source) }
            let megabyte = patternData(count: 1 << 20)
            #expect(FileManager.default.createFile(atPath: source.path, contents: nil))
            let handle = try FileHandle(forWritingTo: source)
            for _ in 0..<(Self.size >> 20) { try handle.write(contentsOf: megabyte) }
            try handle.close()

            try await withServer { _, client in
                let watch = TransferWatch()

                let response = try await client.upload(.post("upload"), from: .file(source)) { watch.note($0) }

                let received = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
                #expect(received?["count"] as? Int == Self.size)
                #expect(watch.last?.bytes == Int64(Self.size))
                #expect(watch.rise < Self.memoryBound, "resident memory rose by \(watch.rise >> 20) MiB")
            }
        }

        @Test func aDataUploadReportsProgressAsItIsSent() async throws {
            try await withServer { _, client in
                let body = patternData(count: 32 << 20)
                let watch = TransferWatch()

                let response = try await client.upload(.post("upload"), from: .data(body)) { watch.note($0) }

                let received = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
                #expect(received?["count"] as? Int == body.count)
                #expect(watch.last == TransferProgress(bytes: Int64(body.count), expectedBytes: Int64(body.count)))
                #expect(watch.reports > 1)
            }
        }

        @Test func aDownloadCancelledMidwayThrowsCancelledAndLeavesNoFile() async throws {
            try await withServer { _, client in
                let destination = FileManager.default.temporaryDirectory.appendingPathComponent("cancelled-download-\(UUID().uuidString)")
                let (started, signal) = AsyncStream<Void>.makeStream()
                let download = Task {
                    try await client.download(.get("bytes/\(Self.size)"), to: destination) { _ in signal.yield() }
                }
                var reports = started.makeAsyncIterator()
                _ = await reports.next()
                download.cancel()

                let error = await #expect(throws: HTTPClientError.self) { try await download.value }

                #expect(error?.isCancelled == true)
                #expect(!FileManager.default.fileExists(atPath: destination.path))
            }
        }

        /// The first and last MiB and a few places between hold the server's pattern.
        static func samplesMatchThePattern(_ file: URL) throws -> Bool {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            for offset in [0, size / 3, size / 2 + 12_345, size - (1 << 20)] {
                try handle.seek(toOffset: UInt64(offset))
                let bytes = try handle.read(upToCount: 1 << 20) ?? Data()
                guard bytes.count == 1 << 20, bytes.enumerated().allSatisfy({ $1 == patternByte(offset + $0) }) else { return false }
            }
            return true
        }
    }
}

/// The last progress of a transfer, and how far resident memory rose above where it was
/// when the watch was made, sampled at every report.
final class TransferWatch: @unchecked Sendable {
    private let lock = NSLock()
    private let baseline = ResidentMemory.current
    private var peak = ResidentMemory.current
    private var latest: TransferProgress?
    private var count = 0

    func note(_ progress: TransferProgress) {
        let resident = ResidentMemory.current
        lock.withLock {
            peak = max(peak, resident)
            latest = progress
            count += 1
        }
    }

    var reports: Int { lock.withLock { count } }

    var last: TransferProgress? { lock.withLock { latest } }
    var rise: Int { lock.withLock { peak - baseline } }
}

/// This process's resident set size, from `/proc/self/statm` (Linux); 0 where it is missing.
enum ResidentMemory {
    static var current: Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
