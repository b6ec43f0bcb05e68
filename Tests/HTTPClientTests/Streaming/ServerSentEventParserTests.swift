import Foundation
import Testing

@testable import HTTPClient

@Suite("Parsing server-sent events")
struct ServerSentEventParserTests {
    private func events(_ text: String, limit: Int = 8 << 20) throws -> [ServerSentEvent] {
        var parser = ServerSentEventParser(maximumEventSize: limit)
        return try parser.parse(Data(text.utf8))
    }

    /// Every way of cutting `bytes` into two chunks, and byte by byte.
    private func splits(_ bytes: [UInt8]) -> [[[UInt8]]] {
        (0...bytes.count).map { [Array(bytes[..<$0]), Array(bytes[$0...])] } + [bytes.map { [$0] }]
    }

    @Test func dataLinesAreJoinedByLineFeedsAndABlankLineDispatches() throws {
        #expect(try events("data: YHOO\ndata: +2\ndata: 10\n\n") == [ServerSentEvent(data: "YHOO\n+2\n10")])
    }

    @Test func theEventFieldNamesTheTypeAndTheDefaultIsMessage() throws {
        let parsed = try events("event: add\ndata: 73857293\n\ndata: plain\n\n")
        #expect(parsed.map(\.type) == ["add", "message"])
        #expect(parsed.map(\.data) == ["73857293", "plain"])
    }

    @Test(arguments: ["\n", "\r", "\r\n"])
    func everyLineEndingIsALineEnding(_ end: String) throws {
        let stream = ["event: tick", "data: 1", "", "data: 2", ""].map { $0 + end }.joined()
        #expect(try events(stream) == [ServerSentEvent(type: "tick", data: "1"), ServerSentEvent(data: "2")])
    }

    @Test func mixedLineEndingsInOneStream() throws {
        #expect(try events("data: a\r\ndata: b\rdata: c\n\r\n") == [ServerSentEvent(data: "a\nb\nc")])
    }

    @Test func aStreamCutAnywhereGivesTheSameEvents() throws {
        let stream = Array("\u{FEFF}: hello\r\nid: 7\r\nevent: ünïcode ✓\r\ndata: first 🚀\r\ndata\r\n\r\nretry: 2500\rdata: x\r\r".utf8)
        var whole = ServerSentEventParser()
        let expected = try whole.parse(stream)
        #expect(expected.count == 2)
        for chunks in splits(stream) {
            var parser = ServerSentEventParser()
            var parsed: [ServerSentEvent] = []
            for chunk in chunks { parsed += try parser.parse(chunk) }
            #expect(parsed == expected, "chunks of sizes \(chunks.map(\.count))")
        }
    }

    @Test func aCarriageReturnAtTheEndOfAChunkAndALineFeedInTheNextAreOneLineEnd() throws {
        var parser = ServerSentEventParser()
        #expect(try parser.parse(Data("data: a\r".utf8)).isEmpty)
        // Were the LF a second line end, this would be a blank line and dispatch now.
        #expect(try parser.parse(Data("\n".utf8)).isEmpty)
        #expect(try parser.parse(Data("\r\n".utf8)) == [ServerSentEvent(data: "a")])
    }

    @Test func aUTF8CharacterSplitBetweenChunksIsKeptWhole() throws {
        let bytes = Array("data: é😀\n\n".utf8)
        var parser = ServerSentEventParser()
        #expect(try parser.parse(bytes[..<8]).isEmpty)  // inside "é"
        #expect(try parser.parse(bytes[8..<11]).isEmpty)  // inside "😀"
        #expect(try parser.parse(bytes[11...]) == [ServerSentEvent(data: "é😀")])
    }

    @Test func invalidUTF8BecomesReplacementCharacters() throws {
        var parser = ServerSentEventParser()
        let bytes: [UInt8] = Array("data: a".utf8) + [0xFF, 0xC3] + Array("\n\n".utf8)
        #expect(try parser.parse(bytes) == [ServerSentEvent(data: "a\u{FFFD}\u{FFFD}")])
    }

    @Test func commentsAndUnknownFieldsAreIgnored() throws {
        #expect(try events(": keep-alive\n:\nfoo: bar\ndata: x\nDATA: y\n\n") == [ServerSentEvent(data: "x")])
    }

    @Test func onlyOneSpaceAfterTheColonIsRemovedAndAFieldWithoutAColonHasAnEmptyValue() throws {
        #expect(try events("data:  two spaces\n\n").first?.data == " two spaces")
        #expect(try events("data:nospace\n\n").first?.data == "nospace")
        #expect(try events("data\n\n") == [ServerSentEvent(data: "")])
        #expect(try events("data\ndata\n\n") == [ServerSentEvent(data: "\n")])
    }

    @Test func anEventWithoutDataIsNotDispatchedAndItsTypeDoesNotLeak() throws {
        #expect(try events("event: ping\n\ndata: x\n\n") == [ServerSentEvent(data: "x")])
    }

    @Test func theLastEventIDPersistsAcrossEventsAndAnIDWithNULIsIgnored() throws {
        let parsed = try events("id: 1\ndata: a\n\ndata: b\n\nid: 2\u{0}x\ndata: c\n\nid\ndata: d\n\n")
        #expect(parsed.map(\.lastEventID) == ["1", "1", "1", ""])
    }

    @Test func anIDInAnEventWithoutDataStillCounts() throws {
        #expect(try events("id: 42\n\ndata: x\n\n").first?.lastEventID == "42")
    }

    @Test func retryTakesOnlyASCIIDigitsAndIgnoresNumbersTooLargeForAnInt() throws {
        #expect(try events("retry: 3000\ndata: a\n\n").first?.retry == 3000)
        #expect(try events("retry: 3000\n\nretry: 12a\ndata: a\n\n").first?.retry == 3000)
        #expect(try events("retry: -5\ndata: a\n\n").first?.retry == nil)
        #expect(try events("retry: ٣\ndata: a\n\n").first?.retry == nil)
        #expect(try events("retry:\ndata: a\n\n").first?.retry == nil)
        #expect(try events("retry: 99999999999999999999999999\ndata: a\n\n").first?.retry == nil)
    }

    @Test func aLeadingByteOrderMarkIsSkippedOnlyAtTheStart() throws {
        #expect(try events("\u{FEFF}data: a\n\n") == [ServerSentEvent(data: "a")])
        #expect(try events("\u{FEFF}\u{FEFF}data: a\n\n").isEmpty)  // the second is part of a field name
        #expect(try events("data: \u{FEFF}a\n\n").first?.data == "\u{FEFF}a")
    }

    @Test func aStartThatMerelyLooksLikeAByteOrderMarkIsKept() throws {
        var parser = ServerSentEventParser()
        #expect(try parser.parse([0xEF, 0xBB]).isEmpty)
        // EF BB followed by "d" is no mark: the bytes belong to the (unknown) field name.
        #expect(try parser.parse(Array("data: a\n\ndata: b\n\n".utf8)) == [ServerSentEvent(data: "b")])
    }

    @Test func anEventCutOffByTheEndOfTheStreamIsNotDispatched() throws {
        #expect(try events("data: complete\n\ndata: partial\n").map(\.data) == ["complete"])
    }

    @Test func aLineLongerThanTheLimitStopsTheParse() {
        let error = #expect(throws: ServerSentEventError.self) {
            try events("data: " + String(repeating: "x", count: 20), limit: 16)
        }
        #expect(error?.kind == .lineTooLong)
        #expect(error?.limit == 16)
    }

    @Test func anEventWhoseDataPassesTheLimitStopsTheParse() throws {
        let error = #expect(throws: ServerSentEventError.self) {
            try events(String(repeating: "data: 0123456789\n", count: 3), limit: 30)
        }
        #expect(error?.kind == .eventTooLarge)
        #expect(error?.description.contains("30 bytes") == true)
        // The limit counts one event: many small events never reach it.
        #expect(try events(String(repeating: "data: 0123456789\n\n", count: 100), limit: 30).count == 100)
    }

    @Test func aBrokenLimitNamesTheArgumentThatRaisesIt() {
        // The parser is not public: the message names the spelling users pass the limit with.
        let tooLong = #expect(throws: ServerSentEventError.self) {
            try events("data: " + String(repeating: "x", count: 20), limit: 16)
        }
        let tooLarge = #expect(throws: ServerSentEventError.self) {
            try events(String(repeating: "data: 0123456789\n", count: 3), limit: 30)
        }
        #expect(tooLong?.description.contains("serverSentEvents(maximumEventSize:)") == true)
        #expect(tooLarge?.description.contains("serverSentEvents(maximumEventSize:)") == true)
    }
}
