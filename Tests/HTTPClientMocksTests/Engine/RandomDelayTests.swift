import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@testable import HTTPClientStubs

/// Random delays are drawn per request from a seeded distribution: repeatable, and shaped as asked.
@Suite("Random delays")
struct RandomDelayTests {
    private static func draws(_ delay: RandomDelay, _ count: Int) -> [TimeInterval] {
        (0..<count).map { _ in delay.next() }
    }

    @Test func theSameSeedDrawsTheSameDelaysInTheSameOrder() {
        #expect(Self.draws(.uniform(0.1...0.5, seed: 7), 50) == Self.draws(.uniform(0.1...0.5, seed: 7), 50))
        #expect(
            Self.draws(.logNormal(median: 0.1, sigma: 0.5, seed: 7), 50) == Self.draws(.logNormal(median: 0.1, sigma: 0.5, seed: 7), 50))
        #expect(Self.draws(.uniform(0.1...0.5, seed: 7), 50) != Self.draws(.uniform(0.1...0.5, seed: 8), 50))
    }

    @Test func uniformDelaysStayInTheirRangeAndSpreadOverIt() {
        let draws = Self.draws(.uniform(0.2...0.4, seed: 1), 2_000)
        #expect(draws.allSatisfy { (0.2...0.4).contains($0) })
        // Each fifth of the range gets about a fifth of the draws.
        for fifth in 0..<5 {
            let lower = 0.2 + Double(fifth) * 0.04
            let share = Double(draws.filter { $0 >= lower && $0 < lower + 0.04 }.count) / 2_000
            #expect(abs(share - 0.2) < 0.04, "fifth \(fifth): \(share)")
        }
    }

    @Test func logNormalDelaysCentreOnTheirMedianWithALongTail() {
        let draws = Self.draws(.logNormal(median: 0.1, sigma: 0.5, seed: 3), 4_001).sorted()
        #expect(abs(draws[2_000] - 0.1) < 0.01)
        #expect(draws.allSatisfy { $0 > 0 && $0.isFinite })
        // Skewed: the slowest are further above the median than the fastest are below it.
        #expect(draws[3_900] - 0.1 > 0.1 - draws[100])
    }

    @Test func eachRequestGetsItsOwnDrawAndAFixedDelayReplacesTheRandomOne() {
        let response = MockResponse.status(200).delayed(by: .uniform(1...2, seed: 11))
        let request = RecordedRequest(URLRequest(url: testURL("https://h/")))
        let latencies = (0..<3).map { _ in response.resolved(for: request).latency }
        #expect(latencies == Self.draws(.uniform(1...2, seed: 11), 3))
        #expect(response.delayed(by: 0.5).resolved(for: request).latency == 0.5)
    }

    @Test func aComputedResponseWithoutItsOwnDelayGetsTheDraw() {
        let response = MockResponse.computed { _ in .status(204) }.delayed(by: .uniform(3...4, seed: 5))
        let latency = response.resolved(for: RecordedRequest(URLRequest(url: testURL("https://h/")))).latency
        #expect(latency == Self.draws(.uniform(3...4, seed: 5), 1)[0])
    }
}
