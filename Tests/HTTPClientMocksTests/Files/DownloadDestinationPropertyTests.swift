import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// Seeded properties of downloads: whatever is at the destination and however the transfer
/// ends, nothing is destroyed, nothing is left behind, and success means the whole body.
///
/// Every destination is inside a scratch folder of the test's own: a regression here must not
/// reach anything else on the machine.
@Suite("Downloads destroy nothing and leave nothing behind, whatever the destination and the ending")
struct DownloadDestinationPropertyTests {
    /// What is at the destination before the download.
    private enum Situation: CaseIterable {
        case nothing, regularFile, directoryWithContents, symlinkToFile, symlinkToDirectory, danglingSymlink, fifo
        case missingFolder, readOnlyFolder
    }

    /// How the server's answer ends.
    private enum Ending: CaseIterable {
        case complete, failedHalfway, rejected, shorterThanItsLength
    }

    /// Everything under `folder`, as lstat(2) sees it: kinds, link targets, file contents.
    private func tree(_ folder: URL) -> [String: String] {
        var entries: [String: String] = [:]
        let names = (try? FileManager.default.subpathsOfDirectory(atPath: folder.path)) ?? []
        for name in names {
            let path = folder.appendingPathComponent(name).path
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                entries[name] = "file " + ((try? Data(contentsOf: URL(fileURLWithPath: path))).map { $0.base64EncodedString() } ?? "?")
            case S_IFDIR: entries[name] = "directory \(info.st_mode & 0o777)"
            case S_IFLNK: entries[name] = "link " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?")
            default: entries[name] = "other \(info.st_mode & S_IFMT)"
            }
        }
        return entries
    }

    /// Files the sessions left in the temporary directory whose contents start with `marker`.
    private func leftovers(startingWith marker: Data) -> [String] {
        let temporary = FileManager.default.temporaryDirectory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        return names.filter { name in
            guard name.hasPrefix("HTTPClient-download-"),
                let handle = FileHandle(forReadingAtPath: temporary.appendingPathComponent(name).path)
            else { return false }
            defer { try? handle.close() }
            return (try? handle.read(upToCount: marker.count)) == marker
        }
    }

    /// A new, empty scratch folder in the temporary directory.
    private func scratchFolder(_ name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        return folder
    }

    /// Builds `situation` in `folder` and returns the destination to download to.
    private func build(_ situation: Situation, in folder: URL) throws -> URL {
        let destination = folder.appendingPathComponent("destination")
        let elsewhere = folder.appendingPathComponent("elsewhere")
        switch situation {
        case .nothing:
            break
        case .regularFile:
            try Data("previous".utf8).write(to: destination)
        case .directoryWithContents:
            try FileManager.default.createDirectory(at: destination.appendingPathComponent("sub"), withIntermediateDirectories: true)
            try Data("inside".utf8).write(to: destination.appendingPathComponent("sub/kept.txt"))
        case .symlinkToFile:
            try Data("target".utf8).write(to: elsewhere)
            try FileManager.default.createSymbolicLink(atPath: destination.path, withDestinationPath: elsewhere.path)
        case .symlinkToDirectory:
            try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: false)
            try Data("inside".utf8).write(to: elsewhere.appendingPathComponent("kept.txt"))
            try FileManager.default.createSymbolicLink(atPath: destination.path, withDestinationPath: elsewhere.path)
        case .danglingSymlink:
            try FileManager.default.createSymbolicLink(atPath: destination.path, withDestinationPath: elsewhere.path)
        case .fifo:
            guard mkfifo(destination.path, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
        case .missingFolder:
            return folder.appendingPathComponent("missing/destination")
        case .readOnlyFolder:
            let locked = folder.appendingPathComponent("locked")
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
            try Data("previous".utf8).write(to: locked.appendingPathComponent("destination"))
            chmod(locked.path, 0o555)
            return locked.appendingPathComponent("destination")
        }
        return destination
    }

    @Test func noDestinationIsDestroyedAndSuccessMeansTheWholeBody() async throws {
        var random = SeededGenerator(seed: 22)
        let marker = Data(UUID().uuidString.utf8)
        for round in 0..<64 {
            let situation = Situation.allCases.randomElement(using: &random) ?? .nothing
            let ending = Ending.allCases.randomElement(using: &random) ?? .complete
            let body = marker + Data((0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
            let folder = try scratchFolder("destination-property")
            defer {
                chmod(folder.appendingPathComponent("locked").path, 0o755)
                try? FileManager.default.removeItem(at: folder)
            }
            let destination = try build(situation, in: folder)
            let before = tree(folder)
            let stubs = StubRegistry()
            let answer: MockResponse =
                switch ending {
                case .complete: .status(200, body: body)
                case .failedHalfway: .streamed([.data(body.prefix(body.count / 2)), .failure(URLError(.networkConnectionLost))])
                case .rejected: .status(403, body: body)
                case .shorterThanItsLength: .streamed(headers: ["Content-Length": "\(body.count + 1)"], [.data(body)])
                }
            stubs.stub(.get, "https://h/file").respond(answer).allowingUnused()
            let client = HTTPClient(session: MockURLSession(stubs: stubs))
            let withProgress = Bool.random(using: &random)

            let result: Result<DownloadedFile, HTTPClientError>
            do {
                result = .success(
                    try await withProgress
                        ? client.download(.get("https://h/file"), to: destination) { _ in }
                        : client.download(.get("https://h/file"), to: destination))
            } catch {
                result = .failure(error)
            }

            let after = tree(folder)
            let context = "round \(round): \(situation), \(ending), progress \(withProgress)"
            switch result {
            case .success:
                #expect(ending == .complete, "\(context): a download that did not complete succeeded")
                #expect([.nothing, .regularFile, .symlinkToFile, .readOnlyFolder].contains(situation), "\(context): accepted")
                let written = try Data(contentsOf: destination)
                #expect(written == body, "\(context): the destination holds \(written.count) of \(body.count) bytes")
                // Only the destination (or a link's target) changed; a link stayed the same link.
                let changed = Set(after.keys.filter { after[$0] != before[$0] })
                #expect(changed.isSubset(of: ["destination", "elsewhere", "locked/destination"]), "\(context): \(changed)")
                #expect(before["destination"]?.hasPrefix("link") != true || after["destination"] == before["destination"], "\(context)")
            case .failure:
                #expect(after == before, "\(context): a failed download changed the folder")
            }
            #expect(leftovers(startingWith: marker).isEmpty, "\(context): a temporary file was left behind")
        }
    }

    @Test func fiftyDownloadsCancelledAtRandomPointsNeverSucceedShort() async throws {
        var random = SeededGenerator(seed: 50)
        let marker = Data(UUID().uuidString.utf8)
        let body = marker + Data((0..<(200 - marker.count)).map { _ in UInt8.random(in: 0...255, using: &random) })
        var parts: [StreamPart] = []
        for start in stride(from: 0, to: body.count, by: 20) {
            parts += [.data(body[start..<min(start + 20, body.count)]), .pause(0.002)]
        }
        let stubs = StubRegistry()
        stubs.stub(.get, "https://h/export").respond(.streamed(headers: ["Content-Length": "\(body.count)"], parts))
        let client = HTTPClient(session: MockURLSession(stubs: stubs, simulatesLatency: true))
        let folder = try scratchFolder("cancel-stress")
        defer { try? FileManager.default.removeItem(at: folder) }
        // Past 200 bytes: never cancelled, so some complete.
        let thresholds = (0..<50).map { _ in Int64.random(in: 0...230, using: &random) }

        let outcomes = await withTaskGroup(of: (Int, Result<DownloadedFile, any Error>).self) { group in
            for (index, threshold) in thresholds.enumerated() {
                let destination = folder.appendingPathComponent("file-\(index)")
                try? Data("previous \(index)".utf8).write(to: destination)
                group.addTask {
                    let state = Locked<(task: Task<DownloadedFile, any Error>?, reached: Bool)>((nil, false))
                    let download = Task {
                        try await client.download(.get("https://h/export"), to: destination) { progress in
                            guard progress.bytes >= threshold else { return }
                            state.withLock { state in
                                state.reached = true
                                return state.task
                            }?.cancel()
                        }
                    }
                    let reached = state.withLock { state in
                        state.task = download
                        return state.reached
                    }
                    if reached || threshold == 0 { download.cancel() }
                    return (index, await download.result)
                }
            }
            var outcomes: [(Int, Result<DownloadedFile, any Error>)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }

        var cancelled = 0
        for (index, result) in outcomes {
            let contents = try Data(contentsOf: folder.appendingPathComponent("file-\(index)"))
            switch result {
            case .success:
                #expect(contents == body, "download \(index) succeeded with \(contents.count) of \(body.count) bytes")
            case .failure(let error):
                cancelled += 1
                #expect((error as? HTTPClientError)?.isCancelled == true, "download \(index): \(error)")
                #expect(contents == Data("previous \(index)".utf8), "download \(index) changed its destination")
            }
        }
        #expect(outcomes.count == 50)
        #expect(cancelled >= 25, "only \(cancelled) of 50 downloads were cancelled: too few to test a cancellation mid-transfer")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 50)
        #expect(leftovers(startingWith: marker).isEmpty)
    }
}
