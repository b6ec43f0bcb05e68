/// How far a download or an upload has come.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// Bytes transferred so far.
    public var bytes: Int64
    /// The size of the whole transfer, when it is known (a `Content-Length`, a file's size).
    public var expectedBytes: Int64?

    /// - Parameter expectedBytes: The whole size; zero or less means unknown, as `URLSession`
    ///   reports it (`NSURLSessionTransferSizeUnknown` is -1).
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
}
