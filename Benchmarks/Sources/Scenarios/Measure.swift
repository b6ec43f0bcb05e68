import Foundation

/// Timing for the ratio table: the median of several rounds, each round timing `iterations`
/// runs of the operation, so one noisy round cannot skew a row.
public enum Measure {
    /// Seconds per operation.
    public static func perOperation(iterations: Int, rounds: Int = 5, _ operation: () -> Void) -> Double {
        for _ in 0..<min(iterations, 1_000) { operation() }  // warm up
        var samples: [Double] = []
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<iterations { operation() }
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 / Double(iterations))
        }
        return samples.sorted()[samples.count / 2]
    }

    /// Seconds per operation over one run of at least `seconds` (and `minimum` operations):
    /// one short round, for tables that alternate many scenarios round by round.
    public static func perOperation(forAtLeast seconds: Double, minimum: Int = 3, _ operation: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        var count = 0
        var elapsed = 0.0
        while count < minimum || elapsed < seconds {
            operation()
            count += 1
            elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        return elapsed / Double(count)
    }

    /// The same for operations that must be awaited (from the main actor, as the table runs).
    @MainActor
    public static func perOperation(forAtLeast seconds: Double, minimum: Int = 3, _ operation: () async -> Void) async -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        var count = 0
        var elapsed = 0.0
        while count < minimum || elapsed < seconds {
            await operation()
            count += 1
            elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        return elapsed / Double(count)
    }

    /// The order in which a round visits `count` scenarios: forwards, and backwards every other
    /// round, so that a scenario measured late in one round is measured early in the next.
    public static func order(of count: Int, round: Int) -> [Int] {
        round.isMultiple(of: 2) ? Array(0..<count) : Array((0..<count).reversed())
    }

    /// Per-round ratios of each of `count` scenarios to a floor timed beside it:
    /// `time(index, false)` times scenario `index` for one short slice, `time(index, true)` its
    /// floor (answering the same request). A round visits every scenario with its floor just
    /// before it, and the next round runs the same sequence backwards (the floor just after), so
    /// the drift of a shared machine's load weighs on both sides of every ratio alike. One round
    /// first warms every path up and is not counted. Returns `ratios[scenario][round]`.
    @MainActor
    public static func ratiosToFloor(
        scenarios count: Int, rounds: Int, _ time: (_ scenario: Int, _ floor: Bool) async -> Double
    ) async -> [[Double]] {
        for scenario in 0..<count {
            _ = await time(scenario, true)
            _ = await time(scenario, false)
        }
        var ratios = [[Double]](repeating: [], count: count)
        for round in 0..<rounds {
            let floorFirst = round.isMultiple(of: 2)
            for scenario in order(of: count, round: round) {
                let before = await time(scenario, floorFirst)
                let after = await time(scenario, !floorFirst)
                ratios[scenario].append(floorFirst ? after / before : before / after)
            }
        }
        return ratios
    }

    /// The median of `values`.
    public static func median(_ values: [Double]) -> Double {
        values.isEmpty ? .nan : values.sorted()[values.count / 2]
    }

    /// Seconds per operation, for operations that must be awaited.
    public static func perOperation(iterations: Int, rounds: Int = 5, _ operation: () async throws -> Void) async rethrows -> Double {
        for _ in 0..<min(iterations, 50) { try await operation() }
        var samples: [Double] = []
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<iterations { try await operation() }
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 / Double(iterations))
        }
        return samples.sorted()[samples.count / 2]
    }

    /// Seconds per operation of `a` and of `b`, measured in alternating rounds so that drift in
    /// the machine's load (a shared, noisy machine) affects both alike.
    public static func interleaved(
        iterations: Int, rounds: Int = 7, _ a: () async throws -> Void, _ b: () async throws -> Void
    ) async rethrows -> (a: Double, b: Double) {
        for _ in 0..<min(iterations, 50) {
            try await a()
            try await b()
        }
        var samplesA: [Double] = []
        var samplesB: [Double] = []
        for round in 0..<rounds {
            // Alternate which goes first, too.
            for first in round.isMultiple(of: 2) ? [true, false] : [false, true] {
                let start = DispatchTime.now().uptimeNanoseconds
                for _ in 0..<iterations { try await first ? a() : b() }
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 / Double(iterations)
                if first { samplesA.append(seconds) } else { samplesB.append(seconds) }
            }
        }
        return (samplesA.sorted()[samplesA.count / 2], samplesB.sorted()[samplesB.count / 2])
    }

    /// This process's resource usage so far.
    static func usage() -> rusage {
        var usage = rusage()
        #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return usage
    }

    /// CPU time (user and system) this process has used so far, in seconds.
    public static func cpuSeconds() -> Double {
        let usage = usage()
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// The peak resident memory of this process so far, in bytes (Linux and Darwin).
    public static func peakResidentBytes() -> Int {
        #if canImport(Darwin)
        return Int(usage().ru_maxrss)  // bytes on Darwin
        #else
        // VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent of a spawned child,
        // so a child measuring from a baseline would report its parent's peak.
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return Int(usage().ru_maxrss) * 1024 }
        return kilobytes * 1024
        #endif
    }

    /// The resident memory now, in bytes.
    public static func residentBytes() -> Int {
        #if os(Linux)
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = Int(statm.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #else
        return peakResidentBytes()
        #endif
    }
}

/// The most space taken on a file system while it is watched: its free bytes, sampled every
/// 5 ms on a thread of its own, against their count when the watch began.
public final class DiskWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var watching = true
    private var lowest: Int64
    private let start: Int64
    private let thread: Thread

    public init(_ folder: URL) {
        let path = folder.path
        start = Self.freeBytes(path)
        lowest = start
        let box = Box()
        thread = Thread { [box] in
            while let watch = box.watch, watch.sample(path) { usleep(5_000) }
        }
        box.watch = self
        thread.start()
    }

    private final class Box: @unchecked Sendable {
        weak var watch: DiskWatch?
    }

    private func sample(_ path: String) -> Bool {
        let free = Self.freeBytes(path)
        lock.lock()
        defer { lock.unlock() }
        lowest = min(lowest, free)
        return watching
    }

    /// Stops watching; the most bytes taken meanwhile.
    public func stop() -> Int64 {
        lock.lock()
        defer { lock.unlock() }
        watching = false
        return start - lowest
    }

    private static func freeBytes(_ path: String) -> Int64 {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return 0 }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }
}
