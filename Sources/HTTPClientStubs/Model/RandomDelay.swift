import Foundation
import HTTPClient

/// A latency drawn afresh for each request (``MockResponse/delayed(by:)-(RandomDelay)``), from a
/// uniform or a log-normal distribution, as WireMock's random delays are; seeded, so a run can be
/// repeated delay for delay.
///
/// One value draws one sequence: copies of a response share it, so the requests it answers get
/// the sequence's delays in the order they arrive.
public final class RandomDelay: Sendable {
    private enum Distribution: Sendable {
        case uniform(lower: TimeInterval, upper: TimeInterval)
        case logNormal(median: TimeInterval, sigma: Double)
    }

    private let distribution: Distribution
    private let generator: Locked<SplitMix64>

    private init(_ distribution: Distribution, seed: UInt64) {
        self.distribution = distribution
        generator = Locked(SplitMix64(seed: seed))
    }

    /// Delays spread evenly over `range` seconds.
    /// - Parameters:
    ///   - range: The shortest and the longest delay, in seconds (negative bounds count as 0).
    ///   - seed: The generator's seed.
    public static func uniform(_ range: ClosedRange<TimeInterval>, seed: UInt64 = 0) -> RandomDelay {
        RandomDelay(.uniform(lower: range.lowerBound, upper: range.upperBound), seed: seed)
    }

    /// Delays whose logarithm is normally distributed: most near `median`, a long tail of slow
    /// ones, as measured network latencies are.
    /// - Parameters:
    ///   - median: The median delay, in seconds.
    ///   - sigma: The standard deviation of the delay's natural logarithm (0.1: tight; 1: a long tail).
    ///   - seed: The generator's seed.
    public static func logNormal(median: TimeInterval, sigma: Double, seed: UInt64 = 0) -> RandomDelay {
        RandomDelay(.logNormal(median: median, sigma: sigma), seed: seed)
    }

    /// The next delay, in seconds: finite and at least 0 (the answer clamps it once more).
    func next() -> TimeInterval {
        let drawn: Double
        switch distribution {
        case .uniform(let lower, let upper):
            drawn = lower + (upper - lower) * generator.withLock { $0.nextUnit() }
        case .logNormal(let median, let sigma):
            // Box-Muller: two uniform draws make one standard normal one.
            let (u1, u2) = generator.withLock { ($0.nextUnit(), $0.nextUnit()) }
            let normal = (-2 * log(max(u1, .leastNonzeroMagnitude))).squareRoot() * cos(2 * .pi * u2)
            drawn = median * exp(sigma * normal)
        }
        return drawn.isFinite ? max(0, drawn) : 0
    }
}

/// A small, fast generator with a 64-bit state (Steele, Lea and Flood's SplitMix64): enough for
/// delays, and the same on every platform for a seed.
private struct SplitMix64: Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in [0, 1).
    mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1p-53 }
}
