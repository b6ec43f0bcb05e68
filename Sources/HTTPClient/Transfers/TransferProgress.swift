/// How far a download or an upload has come.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// Bytes transferred so far.
    public var bytes: Int64
    /// The size of the whole transfer, when it is known (a `Content-Length`, a file's size).
    public var expectedBytes: Int64?

    /// - Parameters:
    ///   - bytes: Bytes transferred so far.
    ///   - expectedBytes: The whole size; zero or less means unknown, as `URLSession` reports
    ///     it (`NSURLSessionTransferSizeUnknown` is -1).
    public init(bytes: Int64, expectedBytes: Int64?) {
        self.bytes = bytes
        self.expectedBytes = expectedBytes.flatMap { $0 > 0 ? $0 : nil }
    }

    /// The completed fraction, 0 to 1, when the size is known.
    public var fractionCompleted: Double? {
        expectedBytes.map { min(1, max(0, Double(bytes) / Double($0))) }
    }

    public var description: String {
        guard let expectedBytes else { return "\(bytes) bytes" }
        return "\(bytes) of \(expectedBytes) bytes"
    }

    /// One line for a progress display: `12.5 MiB of 100.0 MiB (12%) at 6.2 MiB/s` (no share
    /// when the size is unknown, no rate before any time has passed).
    /// `package`: httpc prints it on its progress line.
    package func summary(after seconds: Double) -> String {
        var text = Self.size(Double(bytes))
        if let expectedBytes, let fraction = fractionCompleted {
            text += " of \(Self.size(Double(expectedBytes))) (\(Int(fraction * 100))%)"
        }
        guard seconds > 0, seconds.isFinite else { return text }
        return text + " at \(Self.size(Double(bytes) / seconds))/s"
    }

    private static func size(_ bytes: Double) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = bytes
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        guard unit > 0 else { return "\(Int(value)) B" }
        let tenths = Int((value * 10).rounded(.down))
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
