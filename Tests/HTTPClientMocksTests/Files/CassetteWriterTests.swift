import Foundation
import HTTPClient
import Testing

@testable import HTTPClientStubs

/// A recording in progress: the file on disk is a whole cassette after every exchange, so a
/// recording stopped at any moment (Ctrl-C, a crash) leaves a file that reads.
@Suite("Recording to a file")
struct CassetteWriterTests {
    let folder: TemporaryFolder
    let file: URL

    init() throws {
        folder = try TemporaryFolder()
        file = folder.url.appendingPathComponent("api.json")
    }

    static func exchange(_ path: String, body: String = "ok") -> Cassette.Interaction {
        .init(request: .init(method: "GET", url: "https://api.example.com\(path)"), response: .init(status: 200, body: .text(body)))
    }

    @Test func everySavedExchangeLeavesACompleteCassette() throws {
        let writer = CassetteWriter(file: file, cassette: Cassette(), redaction: .standard)
        for number in 1...3 {
            let saved = try writer.save(Self.exchange("/items/\(number)"))
            #expect(saved.index == number - 1)
            #expect(try Cassette(contentsOf: file).interactions.map(\.request.url).last == "https://api.example.com/items/\(number)")
            #expect(try Cassette(contentsOf: file).interactions.count == number)
        }
    }

    @Test func whatIsSavedIsRedacted() throws {
        let writer = CassetteWriter(file: file, cassette: Cassette(), redaction: .standard)
        let saved = try writer.save(Self.exchange("/me?api_key=k3y-value"))
        #expect(saved.interaction.request.url == "https://api.example.com/me?api_key=\(Redaction.placeholder)")
        #expect(!(try String(contentsOf: file, encoding: .utf8)).contains("k3y-value"))
    }

    @Test func aWriteStoppedHalfwayLeavesThePreviousFileWholeAndNoTemporaryFile() throws {
        let writer = CassetteWriter(file: file, cassette: Cassette(), redaction: .standard)
        _ = try writer.save(Self.exchange("/first"))
        let before = try Data(contentsOf: file)
        struct Interrupted: Error {}

        // What a write does, stopped after half of the new file: the old one stays in place.
        #expect(throws: Interrupted.self) {
            try AtomicFile.write(to: file) { sink in
                try sink(before.prefix(before.count / 2))
                throw Interrupted()
            }
        }

        #expect(try Data(contentsOf: file) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["api.json"])
    }

    /// The temporary file is named by the system's random generator, which needs no descriptor:
    /// Foundation's `UUID()` gives all zeros on Linux when the process has none left.
    @Test func eachWriteGoesThroughATemporaryFileOfItsOwnRandomName() throws {
        var names: [String] = []
        for _ in 0..<2 {
            try AtomicFile.write(to: file) { sink in
                try sink(Data("{}".utf8))
                names += try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasSuffix(".tmp") }
            }
        }
        #expect(names.count == 2)
        #expect(Set(names).count == 2)
        for name in names {
            let random = name.dropFirst(".api.json.".count).dropLast(".tmp".count)
            #expect(random.count == 32 && random.allSatisfy(\.isHexDigit) && random.contains { $0 != "0" }, "\(name)")
        }
    }

    @Test func anExchangeThatWouldWriteASecretIsRefusedAndTheFileKeepsWhatItHad() throws {
        let writer = CassetteWriter(file: file, cassette: Cassette(), redaction: .standard.secret("s3cret"))
        _ = try writer.save(Self.exchange("/first"))
        let before = try Data(contentsOf: file)
        var compressed = Self.exchange("/gz")
        compressed.response.body = Cassette.Body(Data([0x1F, 0x8B, 0x08, 0x00]))

        #expect(throws: CassetteError.self) { try writer.save(compressed) }

        #expect(try Data(contentsOf: file) == before)
        #expect(writer.cassette.interactions.count == 1)
    }

    /// Exchanges saved together are written together; one the writer refuses keeps only itself
    /// out, and the others keep their order and places.
    @Test func exchangesSavedTogetherAreEachSavedOrRefusedOnTheirOwn() throws {
        let writer = CassetteWriter(file: file, cassette: Cassette(), redaction: .standard.secret("s3cret"))
        _ = try writer.save(Self.exchange("/first"))
        var compressed = Self.exchange("/gz")
        compressed.response.body = Cassette.Body(Data([0x1F, 0x8B, 0x08, 0x00]))
        var impossible = Self.exchange("/status")
        impossible.response.status = 42

        let results = writer.save([Self.exchange("/a"), compressed, impossible, Self.exchange("/b")])

        #expect((try? results[0].get().index) == 1)
        #expect((try? results[3].get().index) == 2)
        #expect(results[1].isFailure(saying: "compressed"))
        #expect(results[2].isFailure(saying: "42"))
        let read = try Cassette(contentsOf: file)
        #expect(read.interactions.map(\.request.url) == ["/first", "/a", "/b"].map { "https://api.example.com" + $0 })
    }

    @Test func aFileNamedHARIsRecordedAsHAR() throws {
        let har = folder.url.appendingPathComponent("api.har")
        let writer = CassetteWriter(file: har, cassette: Cassette(), redaction: .standard)
        _ = try writer.save(Self.exchange("/first", body: "one"))
        _ = try writer.save(Self.exchange("/second", body: "two"))
        let read = try Cassette(harContentsOf: har)
        #expect(read.interactions.map(\.response.body?.text) == ["one", "two"])
    }
}

extension Result where Failure == CassetteError {
    /// Whether this is a failure whose description contains `text`.
    fileprivate func isFailure(saying text: String) -> Bool {
        guard case .failure(let error) = self else { return false }
        return error.description.contains(text)
    }
}
