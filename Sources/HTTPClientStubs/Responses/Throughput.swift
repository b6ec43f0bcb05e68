import Foundation
import HTTPClient

/// A download speed for ``MockResponse/throttled(to:)``.
public struct Throughput: Sendable, Hashable {
    /// The speed.
    public var bytesPerSecond: Double

    /// A speed of `bytesPerSecond`.
    public init(bytesPerSecond: Double) {
        self.bytesPerSecond = bytesPerSecond
    }

    /// A speed in kilobits per second, as networks are usually rated.
    static func kilobitsPerSecond(_ value: Double) -> Throughput {
        Throughput(bytesPerSecond: value * 1000 / 8)
    }

    /// GPRS, about 56 kbit/s.
    public static let gprs = kilobitsPerSecond(56)
    /// EDGE, about 128 kbit/s.
    public static let edge = kilobitsPerSecond(128)
    /// 3G, about 3.2 Mbit/s.
    public static let threeG = kilobitsPerSecond(3_200)
    /// Enhanced 3G (HSPA), about 7.2 Mbit/s.
    public static let threeGPlus = kilobitsPerSecond(7_200)
    /// Average Wi-Fi, about 12 Mbit/s.
    public static let wifi = kilobitsPerSecond(12_000)
}
