import Foundation

/// A file opened to be sent as a body: checked to be a regular file (or a link to one) when it
/// is opened, its length taken once, then, once read, checked not to have changed size.
///
/// Opening never blocks (a FIFO is refused, not waited on) and reading never goes past the
/// length taken: a file that grows is not sent beyond it, one that shrinks is not waited on.
/// Its tests (`@testable`) open and read files with it directly, as the sessions do.
final class UploadSource: Sendable {
    /// The file.
    let url: URL
    /// Its size when it was opened: what is declared and sent.
    let length: Int64
    private let descriptor: Int32
    /// What ends the body streams made of the file, once the upload is over.
    private let endings = Locked<[@Sendable () -> Void]>([])

    /// Opens `url` for reading.
    init(_ url: URL) throws(TransferFileError) {
        guard TransferFiles.namesAFile(url) else {
            throw TransferFileError(.uploadSource, path: url.absoluteString, problem: .notAFileURL)
        }
        let path = url.path
        func refuse(_ problem: TransferFileError.Problem) -> TransferFileError {
            TransferFileError(.uploadSource, path: path, problem: problem)
        }
        // O_NONBLOCK: opening a FIFO would otherwise wait for a writer. It changes nothing for
        // a regular file, the only kind read from here.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK)
        guard descriptor >= 0 else {
            let failure = errno
            let reason = FileKind.systemReason()
            let target = FileKind(at: path, followingLinks: true)
            switch target {
            case .regular, .missing, .unusable: break
            case let found: throw refuse(.notARegularFile(TransferFileError.Kind(notRegular: found)))
            }
            // A link whose target is there but cannot be opened (a loop of links, no permission)
            // is unreadable, with the system's reason; only a link to nothing is called one.
            if target == .missing, FileKind(at: path, followingLinks: false) == .symbolicLink {
                throw refuse(.notARegularFile(.danglingSymlink))
            }
            throw refuse(failure == ENOENT ? .missing : .unreadable(reason: reason))
        }
        var opened = stat()
        let kind = fstat(descriptor, &opened) == 0 ? FileKind(mode: opened.st_mode) : .other
        guard kind == .regular else {
            close(descriptor)
            throw refuse(.notARegularFile(TransferFileError.Kind(notRegular: kind)))
        }
        self.url = url
        self.descriptor = descriptor
        self.length = Int64(opened.st_size)
    }

    deinit {
        close(descriptor)
    }

    /// Reads exactly ``length`` bytes, in pieces of at most `pieceSize`, handing each to `sink`;
    /// then checks the file still has ``length`` bytes. A file that shrank or grew fails with
    /// ``TransferFileError/Problem/sizeChanged(declared:found:)``.
    func read(pieceSize: Int = 1 << 20, into sink: (Data) throws -> Void) throws {
        var offset: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: max(1, pieceSize))
        while offset < length {
            let wanted = Int(min(Int64(buffer.count), length - offset))
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, wanted, off_t(offset)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw TransferFileError(.uploadSource, path: url.path, problem: .unreadable(reason: FileKind.systemReason()))
            }
            // The end came before the length taken: the file shrank.
            if count == 0 { break }
            try sink(Data(buffer[0..<count]))
            offset += Int64(count)
        }
        try checkUnchanged()
    }

    /// Throws ``TransferFileError/Problem/sizeChanged(declared:found:)`` when the file no
    /// longer has ``length`` bytes, or holds more than its size says (a file that grew, or one of
    /// /proc, which say 0 and hold text: sending the declared bytes would send a part as the whole).
    func checkUnchanged() throws(TransferFileError) {
        var now = stat()
        guard fstat(descriptor, &now) == 0 else {
            throw TransferFileError(.uploadSource, path: url.path, problem: .unreadable(reason: FileKind.systemReason()))
        }
        var next: UInt8 = 0
        let holdsMore = pread(descriptor, &next, 1, off_t(length)) > 0
        guard Int64(now.st_size) == length, !holdsMore else {
            let found = holdsMore ? max(Int64(now.st_size), length + 1) : Int64(now.st_size)
            throw TransferFileError(.uploadSource, path: url.path, problem: .sizeChanged(declared: length, found: found))
        }
    }

    /// The whole file, ``length`` bytes, checked unchanged.
    func readAll() throws -> Data {
        var body = Data(capacity: Int(clamping: length))
        try read { body.append($0) }
        return body
    }

    /// Runs `ending` when ``uploadEnded()`` is called: a body stream the session let go unread
    /// would otherwise wait for its reader.
    func whenSent(_ ending: @escaping @Sendable () -> Void) {
        endings.withLock { $0.append(ending) }
    }

    /// The upload is over: ends every body stream made of the file.
    func uploadEnded() {
        let pending = endings.withLock { endings in
            defer { endings = [] }
            return endings
        }
        for ending in pending { ending() }
    }

    /// Reads up to `count` bytes at `offset` into `buffer`, never past ``length``: the count
    /// read, 0 at the length taken (or at the file's end, if it shrank), -1 on a read error.
    func read(at offset: Int64, into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        let wanted = Int(min(Int64(count), length - offset))
        guard wanted > 0 else { return 0 }
        while true {
            let read = pread(descriptor, buffer, wanted, off_t(offset))
            if read < 0, errno == EINTR { continue }
            return read
        }
    }
}
