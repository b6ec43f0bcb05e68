import Foundation
import HTTPClient

/// How fast a body downloads, for ``MockResponse/throttled(to:)``: a speed
/// (`Throughput(bytesPerSecond: 7_000)`, a preset such as `.edge`) or the time the whole body
/// takes whatever its size (`.totalTime(2)`).
///
/// A throttled body arrives as a network delivers it: in chunks of about a tenth of a second's
/// worth of bytes (at least 1 byte, at most 64 KB, and never more than 10,000 chunks for one
/// body): the first with the head, each later one after the time the one before it took. `chunks(for:)` and a real session's
/// `didReceive data` see each chunk as it comes; a caller of the whole body gets it once the
/// last chunk is in.
public struct Throughput: Sendable, Hashable {
    /// A speed, or the time of the whole body.
    enum Rate: Hashable {
        case bytesPerSecond(Double)
        case totalTime(TimeInterval)
    }

    let rate: Rate

    /// A speed of `bytesPerSecond`; zero, negative or not a number means no throttling.
    /// - Parameter bytesPerSecond: Bytes of the body delivered each second.
    public init(bytesPerSecond: Double) {
        rate = .bytesPerSecond(bytesPerSecond)
    }

    private init(_ rate: Rate) {
        self.rate = rate
    }

    /// The whole body in `seconds` after the headers, whatever its size (OHHTTPStubs'
    /// positive `responseTime`); an empty body still takes that long.
    /// - Parameter seconds: The time from the headers to the last byte.
    public static func totalTime(_ seconds: TimeInterval) -> Throughput {
        Throughput(.totalTime(seconds))
    }

    /// A speed in kilobits per second, as networks are usually rated.
    static func kilobitsPerSecond(_ value: Double) -> Throughput {
        Throughput(bytesPerSecond: value * 1000 / 8)
    }

    // OHHTTPStubs' presets, with its values (its "KB" is 1,000 bytes).

    /// 1 KB/s (8 kbit/s).
    public static let oneKilobytePerSecond = Throughput(bytesPerSecond: 1_000)
    /// A very slow link, 1.5 KB/s (12 kbit/s).
    public static let slow = Throughput(bytesPerSecond: 1_500)
    /// GPRS, 56 kbit/s (7 KB/s).
    public static let gprs = kilobitsPerSecond(56)
    /// EDGE, 128 kbit/s (16 KB/s).
    public static let edge = kilobitsPerSecond(128)
    /// 3G, 3.2 Mbit/s (400 KB/s).
    public static let threeG = kilobitsPerSecond(3_200)
    /// Enhanced 3G (HSPA), 7.2 Mbit/s (900 KB/s).
    public static let threeGPlus = kilobitsPerSecond(7_200)
    /// Average Wi-Fi, 12 Mbit/s (1.5 MB/s).
    public static let wifi = kilobitsPerSecond(12_000)

    // MARK: Delivering

    /// The largest chunk, and the most chunks one body is cut into (so a huge body at a crawl
    /// costs a bounded number of parts).
    static let largestChunk = 64 * 1024
    static let mostChunks = 10_000

    /// Seconds `byteCount` bytes take, or `nil` when this throughput does not throttle
    /// (a speed that is not positive and finite, a total time that is not positive and finite).
    func seconds(forBodyOf byteCount: Int) -> TimeInterval? {
        switch rate {
        case .bytesPerSecond(let speed):
            guard speed > 0, speed.isFinite else { return nil }
            return Double(byteCount) / speed
        case .totalTime(let seconds):
            guard seconds > 0, seconds.isFinite else { return nil }
            return seconds
        }
    }

    /// `parts` as this throughput delivers them: each data part cut into chunks, each after a
    /// pause of the time the chunk before it took (the first at once); existing pauses and
    /// failures kept in place.
    /// Unchanged when this throughput does not throttle.
    func throttling(_ parts: [StreamPart]) -> [StreamPart] {
        let byteCount = parts.reduce(0) { $0 + ($1.data?.count ?? 0) }
        guard let total = seconds(forBodyOf: byteCount) else { return parts }
        guard byteCount > 0 else { return [.pause(total)] + parts }
        let speed = Double(byteCount) / total
        let tenth = Int(min(max(speed / 10, 1), Double(Self.largestChunk)))
        let chunkSize = max(tenth, (byteCount + Self.mostChunks - 1) / Self.mostChunks)
        var throttled: [StreamPart] = []
        var previousChunk: Int?
        // Where the pauses between chunks are, so a total time can be met exactly.
        var added: [Int] = []
        for part in parts {
            guard case .data(let data) = part else {
                throttled.append(part)
                continue
            }
            var start = data.startIndex
            while start < data.endIndex {
                let end = data.index(start, offsetBy: chunkSize, limitedBy: data.endIndex) ?? data.endIndex
                // The first chunk goes out with the head; each later one after the time the one
                // before it took, as a link that sends a period's bytes, then waits, does.
                if let previous = previousChunk {
                    added.append(throttled.count)
                    throttled.append(.pause(Double(previous) / speed))
                }
                throttled.append(.data(data.subdata(in: start..<end)))
                previousChunk = end - start
                start = end
            }
        }
        guard case .totalTime = rate else { return throttled }
        // The last byte arrives at the total time: the pauses between chunks share it, or one
        // pause before a body of one chunk takes it all.
        let between = added.reduce(0) { $0 + (throttled[$1].pause ?? 0) }
        guard between > 0 else {
            let first = throttled.firstIndex { $0.data != nil } ?? 0
            throttled.insert(.pause(total), at: first)
            return throttled
        }
        for index in added { throttled[index] = .pause((throttled[index].pause ?? 0) * total / between) }
        return throttled
    }
}
