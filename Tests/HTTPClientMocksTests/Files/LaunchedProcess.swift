import Foundation

/// A process a test launched and talks to while it runs (`httpc serve`, an app under test): the
/// lines it prints, read one at a time as it prints them. Terminated when the test lets it go,
/// so a failed expectation never leaves it running.
final class LaunchedProcess {
    let process: Process
    private let output: FileHandle
    private var buffer = Data()

    /// Starts `executable` with `arguments` in `directory`, with this process's environment
    /// (proxies and `HTTPCLIENT_` variables removed) and `environment`.
    init(_ executable: URL, _ arguments: [String] = [], environment: [String: String] = [:], in directory: URL = HttpcTests.root) throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        // No proxy: loopback servers are reached directly.
        process.environment = ProcessInfo.processInfo.environment
            .filter { !$0.key.hasPrefix("HTTPCLIENT_") && !$0.key.lowercased().hasSuffix("_proxy") }
            .merging(environment) { _, new in new }
        let pipe = Pipe()
        output = pipe.fileHandleForReading
        process.standardInput = Pipe()
        process.standardOutput = pipe
        process.standardError = Pipe()
        try process.run()
    }

    /// The next line printed; blocks until it is complete, `nil` once the process closed its output.
    func nextLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = output.availableData
            guard !chunk.isEmpty else { return nil }
            buffer.append(chunk)
        }
    }

    /// Waits for the process to end; returns its exit status and what it wrote on stderr.
    func finish() -> (status: Int32, errors: String) {
        let errors = (process.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: errors, as: UTF8.self))
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}
