import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// Stubs that require a header value or a query item are filed under it, and templates under
/// their leading literal segments; routing must behave exactly as a scan would: the newest
/// matching stub wins, whatever order stubs and conditions were added in.
@Suite("Stubs filed by a required value or by leading segments")
struct ValueIndexTests {
    // MARK: Header values

    @Test func eachOfAThousandHeaderVariantsFindsItsOwnStub() {
        let stubs = StubRegistry(reporting: .disabled)
        for variant in 0..<1000 {
            stubs.stub(.get, "/items").matching(.header("X-Variant", "\(variant)")).respond(.text("variant \(variant)"))
        }
        #expect(answer(stubs, "https://h/items", headers: ["X-Variant": "0"]) == "variant 0")
        #expect(answer(stubs, "https://h/items", headers: ["x-variant": "999"]) == "variant 999")
        #expect(answer(stubs, "https://h/items", headers: ["X-Variant": "1000"]) == nil)
        #expect(answer(stubs, "https://h/items") == nil)
    }

    @Test func aNewerStubWithoutTheHeaderWinsOverAnOlderOneWithItAndTheReverse() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/items").matching(.header("X-Variant", "a")).respond(.text("header, older"))
        stubs.stub(.get, "/items").respond(.text("plain, newer"))
        #expect(answer(stubs, "https://h/items", headers: ["X-Variant": "a"]) == "plain, newer")

        let reversed = StubRegistry(reporting: .disabled)
        reversed.stub(.get, "/items").respond(.text("plain, older"))
        reversed.stub(.get, "/items").matching(.header("X-Variant", "a")).respond(.text("header, newer"))
        #expect(answer(reversed, "https://h/items", headers: ["X-Variant": "a"]) == "header, newer")
        #expect(answer(reversed, "https://h/items", headers: ["X-Variant": "b"]) == "plain, older")
    }

    @Test func aConditionAddedAfterANewerStubKeepsRegistrationOrder() {
        let stubs = StubRegistry(reporting: .disabled)
        let older = stubs.stub(.get, "/items").respond(.text("older"))
        stubs.stub(.get, "/items").matching(.header("X-Variant", "a")).respond(.text("newer"))
        older.matching(.header("X-Variant", "a"))
        #expect(answer(stubs, "https://h/items", headers: ["X-Variant": "a"]) == "newer")
        #expect(answer(stubs, "https://h/items") == nil)
    }

    @Test func everyConditionIsStillTestedNotOnlyTheOneItIsFiledUnder() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/items").matching(.headers(["X-A": "1", "X-B": "2"])).respond(.text("both"))
        #expect(answer(stubs, "https://h/items", headers: ["X-A": "1", "X-B": "2"]) == "both")
        #expect(answer(stubs, "https://h/items", headers: ["X-A": "1", "X-B": "3"]) == nil)
        #expect(answer(stubs, "https://h/items", headers: ["X-B": "2"]) == nil)
    }

    @Test func aHeaderUnderOrOrNotIsNeverRequired() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/either").matching(.header("X-A", "1") || .header("X-B", "1")).respond(.text("either"))
        stubs.stub(.get, "/not").matching(!.header("X-A", "1")).respond(.text("not"))
        #expect(answer(stubs, "https://h/either", headers: ["X-B": "1"]) == "either")
        #expect(answer(stubs, "https://h/not") == "not")
        #expect(answer(stubs, "https://h/not", headers: ["X-A": "1"]) == nil)
    }

    @Test func anExhaustedOrRemovedStubInAValueBucketGivesWayToTheOlderOne() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/items").matching(.header("X-Variant", "a")).respond(.text("always"))
        stubs.stub(.get, "/items").matching(.header("X-Variant", "a")).respond(.text("once")).once()
        let removed = stubs.stub(.get, "/items").matching(.header("X-Variant", "a")).respond(.text("removed"))
        stubs.remove(removed)
        #expect(answer(stubs, "https://h/items", headers: ["X-Variant": "a"]) == "once")
        #expect(answer(stubs, "https://h/items", headers: ["X-Variant": "a"]) == "always")
    }

    @Test func aRemovedStubStaysRemovedWhenAConditionIsAddedLater() {
        let stubs = StubRegistry(reporting: .disabled)
        let removed = stubs.stub(.get, "/items").respond(.text("removed"))
        stubs.remove(removed)
        removed.matching(.header("X-Variant", "a"))
        #expect(answer(stubs, "https://h/items", headers: ["X-Variant": "a"]) == nil)
        #expect(stubs.stubs.isEmpty)
    }

    @Test func stubsRegisteredWithAMatcherAloneAreFiledToo() {
        let stubs = StubRegistry(reporting: .disabled)
        for tenant in 0..<100 { stubs.stub(where: .header("X-Tenant", "\(tenant)")).respond(.text("tenant \(tenant)")) }
        stubs.stub(where: .path("/health")).respond(.text("healthy"))
        #expect(answer(stubs, "https://h/anything", headers: ["X-Tenant": "42"]) == "tenant 42")
        #expect(answer(stubs, "https://h/health", headers: ["X-Tenant": "42"]) == "healthy")
    }

    // MARK: Query items (a subset of the query)

    @Test func aQueryItemConditionFindsItsStubWhateverElseTheQueryHas() {
        let stubs = StubRegistry(reporting: .disabled)
        for page in 0..<1000 { stubs.stub(.get, "/items").matching(.query(["page": "\(page)"])).respond(.text("page \(page)")) }
        #expect(answer(stubs, "https://h/items?size=20&page=7&sort=new") == "page 7")
        #expect(answer(stubs, "https://h/items?page=999") == "page 999")
        #expect(answer(stubs, "https://h/items?size=20") == nil)
    }

    @Test func aRepeatedParameterOffersEachOfItsValues() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/filter").matching(.query(["tag": "b"])).respond(.text("b"))
        stubs.stub(.get, "/filter").matching(.query(["tag": "c"])).respond(.text("c"))
        #expect(answer(stubs, "https://h/filter?tag=a&tag=b") == "b")
        #expect(answer(stubs, "https://h/filter?tag=c&tag=b") == "c")
        #expect(answer(stubs, "https://h/filter?tag=a") == nil)
    }

    @Test func aQueryItemIsComparedPercentDecoded() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/search").matching(.query(["q": "café au lait"])).respond(.text("coffee"))
        #expect(answer(stubs, "https://h/search?q=caf%C3%A9%20au%20lait&page=1") == "coffee")
        #expect(answer(stubs, "https://h/search?q=caf%c3%a9%20au%20lait") == "coffee")
    }

    @Test func anEmptyValueMatchesAParameterWrittenWithoutOne() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/flags").matching(.query(["verbose": ""])).respond(.text("verbose"))
        #expect(answer(stubs, "https://h/flags?verbose") == "verbose")
        #expect(answer(stubs, "https://h/flags?verbose=") == "verbose")
        #expect(answer(stubs, "https://h/flags?verbose=1") == nil)
    }

    // MARK: Templates and prefixes by their leading segments

    @Test func templatesThatShareTheirFirstSegmentFindTheirOwnStub() {
        let stubs = StubRegistry(reporting: .disabled)
        for resource in 0..<1000 {
            stubs.stub(.get, "/v1/res\(resource)/{id}").respond(
                .computed { request in .text("res\(resource) \(request.pathParameters["id"] ?? "?")")
                })
        }
        #expect(answer(stubs, "https://h/v1/res0/42") == "res0 42")
        #expect(answer(stubs, "https://h/v1/res999/7") == "res999 7")
        #expect(answer(stubs, "https://h/v1/res1000/7") == nil)
        #expect(answer(stubs, "https://h/v1/res5") == nil)
    }

    @Test func templatesAndPrefixesOfDifferentDepthsKeepRegistrationOrder() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/v1/users/{id}").respond(.text("template, oldest"))
        stubs.stub(.get, .prefix("/v1/")).respond(.text("prefix /v1/"))
        #expect(answer(stubs, "https://h/v1/users/1") == "prefix /v1/")
        stubs.stub(.get, "/v1/{kind}/1").respond(.text("template, newest"))
        #expect(answer(stubs, "https://h/v1/users/1") == "template, newest")
        #expect(answer(stubs, "https://h/v1/users/2") == "prefix /v1/")
    }

    @Test func aPrefixThatEndsInsideASegmentStillMatchesLongerSegments() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, .prefix("/v1/us")).respond(.text("prefix"))
        #expect(answer(stubs, "https://h/v1/users/1") == "prefix")
        #expect(answer(stubs, "https://h/v1/us") == "prefix")
        #expect(answer(stubs, "https://h/v1/a") == nil)
    }

    @Test func anEmptySegmentIsASegmentToo() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/a//{id}").respond(.text("double slash"))
        #expect(answer(stubs, "https://h/a//5") == "double slash")
        #expect(answer(stubs, "https://h/a/5") == nil)
    }
}
