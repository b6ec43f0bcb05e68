import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A cassette path is a regular file or a symbolic link to one; anything else is refused with a
/// ``CassetteError`` that names the path and what is there.
@Suite("Cassette paths")
struct CassettePathTests {
    let folder: TemporaryFolder
    let upstream = MockURLSession(stubs: StubRegistry("the real API", reporting: .disabled))

    init() throws {
        folder = try TemporaryFolder()
        upstream.stubs.stub(.get, "/a").respond(.text("a"))
    }

    func recordOneExchange(at file: URL) async throws {
        let session = try CassetteSession(file: file, mode: .all, upstream: upstream, reporting: .disabled)
        _ = try await session.data(for: URLRequest(url: testURL("https://h/a")))
    }

    @Test func recordingThroughASymbolicLinkKeepsTheLink() async throws {
        let target = folder.url.appendingPathComponent("target.json")
        try Cassette().write(to: target)
        let link = folder.url.appendingPathComponent("link.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        try await recordOneExchange(at: link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
    }

    @Test func recordingThroughASymbolicLinkUpdatesItsTarget() async throws {
        let target = folder.url.appendingPathComponent("target.json")
        try Cassette().write(to: target)
        let link = folder.url.appendingPathComponent("link.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        try await recordOneExchange(at: link)
        #expect(try Cassette(contentsOf: target).interactions.map(\.request.url) == ["https://h/a"])
    }

    @Test func aDirectoryAsACassetteToRecordIsRefusedAsADirectory() throws {
        let error = #expect(throws: CassetteError.self) {
            try CassetteSession(file: folder.url, mode: .all, upstream: upstream, reporting: .disabled)
        }
        #expect(error == .unwritable(file: folder.url.path, reason: "it is a directory, not a regular file"))
    }

    @Test func aDirectoryAsACassetteToReadIsRefusedAsADirectory() throws {
        let error = #expect(throws: CassetteError.self) { try Cassette(contentsOf: folder.url) }
        #expect(error == .unreadable(file: folder.url.path, reason: "it is a directory, not a regular file"))
    }

    @Test func aFIFOAsACassetteIsRefusedWithoutBlocking() throws {
        let fifo = folder.url.appendingPathComponent("pipe.json")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let error = #expect(throws: CassetteError.self) { try CassetteSession(file: fifo, mode: .once, reporting: .disabled) }
        #expect(error == .unreadable(file: fifo.path, reason: "it is a FIFO (named pipe), not a regular file"))
    }

    @Test func aDeviceAsACassetteToRecordIsRefusedAsADevice() throws {
        let device = URL(fileURLWithPath: "/dev/null")
        let error = #expect(throws: CassetteError.self) {
            try CassetteSession(file: device, mode: .all, upstream: upstream, reporting: .disabled)
        }
        #expect(error == .unwritable(file: device.path, reason: "it is a character device, not a regular file"))
    }

    @Test func aSymbolicLinkToNothingIsRefusedAsOne() throws {
        let link = folder.url.appendingPathComponent("dangling.json")
        try FileManager.default.createSymbolicLink(
            at: link, withDestinationURL: folder.url.appendingPathComponent("gone.json"))
        let error = #expect(throws: CassetteError.self) {
            try CassetteSession(file: link, mode: .all, upstream: upstream, reporting: .disabled)
        }
        #expect(error == .unwritable(file: link.path, reason: "it is a symbolic link to nothing"))
    }
}
