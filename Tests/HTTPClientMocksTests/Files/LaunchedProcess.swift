import Foundation
import HTTPClient

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A program a test starts (`httpc`, `httpc serve`, curl, an app under test) and talks to while
/// it runs: the lines it prints, read as it prints them, its exit status and what it wrote on
/// stderr. Killed and reaped when the test lets it go, so a failed expectation never leaves it
/// running.
///
/// Started with `posix_spawn`, every descriptor of the test process but the three standard ones
/// closed in the child, rather than with Foundation's `Process`: on Linux, corelibs Foundation
/// up to Swift 6.3 reads past the end of each `/proc/self/fd` entry while listing the
/// descriptors to close, and a test process with a thousand descriptors open crashed there.
final class LaunchedProcess: @unchecked Sendable {
    /// Where one of the child's output streams goes.
    enum Output {
        /// A pipe this object reads.
        case pipe
        /// `/dev/null`.
        case discarded
    }

    /// The child's process identifier.
    let identifier: pid_t
    private let input: Int32
    private let output: Int32
    private let errors: Int32
    /// Guards `buffer`, the output read ahead of the lines asked for.
    private let lock = NSLock()
    private var buffer = Data()
    /// One waiter at a time; `status` is set once the child is reaped.
    private let reaping = NSLock()
    private let status = Locked<Int32?>(nil)

    /// Starts `executable` with `arguments` in `directory`, with this process's environment
    /// (proxies and `HTTPCLIENT_` variables removed: loopback servers are reached directly)
    /// and `environment`. Its standard input is a pipe that stays open: a child that read it
    /// would wait.
    init(
        _ executable: URL, _ arguments: [String] = [], environment: [String: String] = [:], in directory: URL = HttpcTests.root,
        output outputKind: Output = .pipe, errors errorsKind: Output = .pipe
    ) throws {
        let variables = ProcessInfo.processInfo.environment
            .filter { !$0.key.hasPrefix("HTTPCLIENT_") && !$0.key.lowercased().hasSuffix("_proxy") }
            .merging(environment) { _, new in new }
        let stdin = try Self.makePipe()
        let stdout = outputKind == .pipe ? try Self.makePipe() : (read: -1, write: -1)
        let stderr = errorsKind == .pipe ? try Self.makePipe() : (read: -1, write: -1)
        defer {
            // The child's ends, which the child has its own copies of.
            for descriptor in [stdin.read, stdout.write, stderr.write] where descriptor >= 0 { close(descriptor) }
        }
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        var attributes: posix_spawnattr_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin.read, 0)
        if stdout.write >= 0 {
            posix_spawn_file_actions_adddup2(&actions, stdout.write, 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        if stderr.write >= 0 {
            posix_spawn_file_actions_adddup2(&actions, stderr.write, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var command = [executable.path] + arguments
        #if canImport(Darwin)
        // Every descriptor not named above is closed in the child.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_CLOEXEC_DEFAULT))
        posix_spawn_file_actions_addchdir_np(&actions, directory.path)
        #else
        try Self.closeTheRest(&actions)
        if let addChdir = Self.addChdir {
            _ = addChdir(&actions, directory.path)
        } else {
            command = ["/bin/sh", "-c", #"cd -- "$1" && shift && exec "$@""#, "sh", directory.path] + command
        }
        #endif
        let argv = command.map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var child = pid_t()
        let spawned = posix_spawn(&child, command[0], &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            for descriptor in [stdin.write, stdout.read, stderr.read] where descriptor >= 0 { close(descriptor) }
            throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO)
        }
        identifier = child
        input = stdin.write
        output = stdout.read
        errors = stderr.read
    }

    /// The next line printed; blocks until it is complete, `nil` once the child closed its output.
    func nextLine() -> String? {
        lock.lock()
        defer { lock.unlock() }
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = Self.readSome(output)
            guard !chunk.isEmpty else { return nil }
            buffer.append(chunk)
        }
    }

    /// Reads and drops everything the child prints from now on, on a thread of its own, so it
    /// never waits on a full pipe.
    func discardTheRestOfItsOutput() {
        let thread = Thread { [self] in _ = self.readToEnd(self.output) }
        thread.start()
    }

    /// Sends `number` to the child, unless it has ended and been reaped (its identifier may
    /// name another process by then).
    func signal(_ number: Int32) {
        if status.current == nil { kill(identifier, number) }
    }

    /// Waits for the child to end; its exit status (128 + the signal when a signal ended it),
    /// the rest of its standard output and what it wrote on stderr, both read as it writes them.
    func finish() -> (status: Int32, output: Data, errors: String) {
        let errorsRead = Locked(Data())
        let done = DispatchSemaphore(value: 0)
        Thread { [self] in
            let data = self.readToEnd(self.errors)
            errorsRead.withLock { $0 = data }
            done.signal()
        }.start()
        lock.lock()
        let rest = buffer + readToEnd(output)
        buffer = Data()
        lock.unlock()
        done.wait()
        return (wait(), rest, String(decoding: errorsRead.current, as: UTF8.self))
    }

    /// Waits for the child to end: its exit status, or 128 + the signal that ended it.
    @discardableResult
    func wait() -> Int32 {
        reaping.lock()
        defer { reaping.unlock() }
        if let status = status.current { return status }
        var raw: Int32 = 0
        while waitpid(identifier, &raw, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as functions.
        let signal = raw & 0x7f
        let result = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
        status.withLock { $0 = result }
        return result
    }

    deinit {
        if status.current == nil {
            kill(identifier, SIGKILL)
            var raw: Int32 = 0
            while waitpid(identifier, &raw, 0) < 0 && errno == EINTR {}
        }
        for descriptor in [input, output, errors] where descriptor >= 0 { close(descriptor) }
    }

    // MARK: Descriptors

    private func readToEnd(_ descriptor: Int32) -> Data {
        var data = Data()
        while true {
            let chunk = Self.readSome(descriptor)
            if chunk.isEmpty { return data }
            data.append(chunk)
        }
    }

    /// Up to 64 KiB from `descriptor`; empty at its end (or when there is no such stream).
    private static func readSome(_ descriptor: Int32) -> Data {
        guard descriptor >= 0 else { return Data() }
        var bytes = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = read(descriptor, &bytes, bytes.count)
            if count < 0 && errno == EINTR { continue }
            return count > 0 ? Data(bytes[0..<count]) : Data()
        }
    }

    /// A pipe whose two ends are closed in every child but the one they are given to (children
    /// started here close every other descriptor anyway).
    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    #if !canImport(Darwin)
    private typealias FileAction = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    private typealias ChdirAction = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34) and
    /// `posix_spawn_file_actions_addchdir_np` (2.29), which Swift's Glibc module does not export.
    private static let addCloseFrom: FileAction? = symbol("posix_spawn_file_actions_addclosefrom_np")
    private static let addChdir: ChdirAction? = symbol("posix_spawn_file_actions_addchdir_np")

    private static func symbol<Function>(_ name: String) -> Function? {
        guard let handle = dlopen(nil, RTLD_NOW), let address = dlsym(handle, name) else { return nil }
        return unsafeBitCast(address, to: Function.self)
    }

    /// Closes every descriptor above the standard three in the child: at once where glibc can,
    /// else one by one as `/proc/self/fd` lists them (each name read where it lies, never copied
    /// as a whole entry).
    private static func closeTheRest(_ actions: inout posix_spawn_file_actions_t) throws {
        if let addCloseFrom {
            _ = addCloseFrom(&actions, 3)
            return
        }
        guard let directory = opendir("/proc/self/fd") else { throw POSIXError(.ENOENT) }
        defer { closedir(directory) }
        let listing = dirfd(directory)
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 0
        while let entry = readdir(directory) {
            let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
            guard let descriptor = Int32(name), descriptor > 2, descriptor != listing else { continue }
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }
    #endif
}
