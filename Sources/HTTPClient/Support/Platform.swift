import Foundation

// Every difference between Apple's platforms and Linux (swift-corelibs-foundation) that the
// package's code has to spell differently lives in this file, except one behaviour that belongs
// to the URLProtocol transport (HTTPClientStubs' ClientThread.swift) and the socket calls of
// StubServer (HTTPClientStubs' Server/Socket.swift). CONTRIBUTING.md's platform table
// lists each branch and what differs; `../shared/darwin/typecheck` type-checks the Apple side.

// corelibs keeps URLSession, URLRequest and URLResponse in a module of their own. Re-exporting it
// here means every file of this module, and every client of it, sees them with a plain
// `import Foundation` + `import HTTPClient`. Apple's Foundation has no such module.
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif

// Foundation re-exports the C library on both sides (Darwin, Glibc); it is imported by name only
// to reach `os_unfair_lock` and to call write(2) by its module-qualified name.
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The lock under ``Locked``: `os_unfair_lock` on Apple platforms (no allocation, no syscall when
/// uncontended), `pthread_mutex_t` elsewhere.
#if canImport(Darwin)
@usableFromInline typealias LockPrimitive = os_unfair_lock
#else
@usableFromInline typealias LockPrimitive = pthread_mutex_t
#endif

/// The platform's lock calls, for ``Locked`` (inlined where it is used).
@usableFromInline
enum PlatformLock {
    @inlinable
    static func initialize(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
        lock.initialize(to: os_unfair_lock())
        #else
        lock.initialize(to: pthread_mutex_t())
        pthread_mutex_init(lock, nil)
        #endif
    }

    @inlinable
    static func lock(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
        os_unfair_lock_lock(lock)
        #else
        pthread_mutex_lock(lock)
        #endif
    }

    @inlinable
    static func unlock(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
        os_unfair_lock_unlock(lock)
        #else
        pthread_mutex_unlock(lock)
        #endif
    }

    @inlinable
    static func destroy(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if !canImport(Darwin)
        pthread_mutex_destroy(lock)
        #endif
        _ = lock.deinitialize(count: 1)
    }
}

/// write(2), named apart from the many `write` methods in scope (the C function is reachable
/// only by its module's name, which differs per platform).
func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    Darwin.write(descriptor, buffer, count)
    #elseif canImport(Glibc)
    Glibc.write(descriptor, buffer, count)
    #else
    Musl.write(descriptor, buffer, count)
    #endif
}

/// Whether a data task can be paused mid-body by `suspend()` and continued by `resume()`, as the
/// companion session does to hold a slow stream reader's memory to one window.
///
/// Apple documents it (a suspended task makes no network traffic; `resume()` continues it).
/// corelibs takes a suspended task's handle out of curl's multi handle and, on resume, adds it
/// back, which starts the transfer over: measured here, a 1 GiB body read slowly arrived 40
/// times over. So on Linux a task is never suspended, and a real `URLSession` stream buffers
/// what the network delivers faster than it is read (see BENCHMARKS.md).
#if canImport(FoundationNetworking)
let suspendingADataTaskPausesIt = false
#else
let suspendingADataTaskPausesIt = true
#endif

/// Whether a URLProtocol may give any task its body in several `urlProtocol(_:didLoad:)` calls.
///
/// Apple's loading machinery appends each piece, whatever the task. corelibs' completion-handler
/// tasks (and async `data(for:)`) keep only the last piece, and a protocol cannot tell them from
/// delegate tasks: there, only a task of `chunks(for:)` (``URLSessionTask/readsBodyInChunks``)
/// gets the pieces, and any other the whole body in one call.
/// `package`: `StubURLProtocol` (HTTPClientStubs) decides with it how to hand a body over.
#if canImport(FoundationNetworking)
package let urlProtocolClientsKeepEveryPiece = false
#else
package let urlProtocolClientsKeepEveryPiece = true
#endif

// MARK: - Streams and transfers on the app's session

// On Apple platforms every stream and transfer runs on the session it is called on, with a
// delegate of the task's own (task delegates exist from the package's floors); what that
// delegate does not handle (challenges, redirect decisions, metrics) reaches the session's
// delegate. corelibs differs in three ways, each handled below:
// - It calls a task's own delegate only for the tasks of its async methods, which gather the
//   whole body before they return (and whose downloads write every byte twice when the delegate
//   takes writes), and a session's delegate is fixed when it is made: a stream read as it
//   arrives, and a download that reports progress, run on a companion session, whose delegate
//   hands redirect decisions and challenges to the app's session delegate (on that session's
//   queue).
// - A body stream cannot declare its length: curl sends any stream chunked, so a file upload is
//   sent with `Transfer-Encoding: chunked` (Apple's sessions send the declared
//   `Content-Length`). corelibs' own file upload declares the length but reads past it when the
//   file grows (measured: 25 MB sent after a 20 MB Content-Length), so it is not used.

#if canImport(FoundationNetworking)

/// Whether a request's body stream is sent with the `Content-Length` the request declares.
let bodyStreamsCanDeclareTheirLength = false

extension URLSession {
    /// The task `make` makes, whose callbacks reach `delegate`: a task of this session's
    /// companion (see above).
    func delegatedTask<Made: URLSessionTask>(
        _ delegate: any URLSessionTaskDelegate & Sendable, make: (URLSession) -> Made
    ) -> Made {
        StreamingCompanions.shared.task(of: self, delegate: delegate, make: make)
    }
}

/// For each session that streams, a companion with the same configuration (cookie storage,
/// cache, credentials, timeouts) whose delegate hands each task's callbacks to its receiver.
final class StreamingCompanions: Sendable {
    static let shared = StreamingCompanions()

    private struct Companion: Sendable {
        weak var owner: URLSession?
        let session: URLSession
        let router: CompanionRouter
    }

    private let companions = Locked<[ObjectIdentifier: Companion]>([:])

    func task<Made: URLSessionTask>(
        of owner: URLSession, delegate: any URLSessionTaskDelegate & Sendable, make: (URLSession) -> Made
    ) -> Made {
        let (companion, released) = companions.withLock { companions -> (Companion, [Companion]) in
            // A session's identifier can be reused once it is gone: an entry counts only while
            // its owner lives, and the companions of released sessions are let go here.
            let released = companions.values.filter { $0.owner == nil }
            companions = companions.filter { $0.value.owner != nil }
            if let existing = companions[ObjectIdentifier(owner)], existing.owner === owner { return (existing, released) }
            let router = CompanionRouter(owner: owner)
            let session = URLSession(configuration: owner.configuration, delegate: router, delegateQueue: nil)
            let companion = Companion(owner: owner, session: session, router: router)
            companions[ObjectIdentifier(owner)] = companion
            return (companion, released)
        }
        // Tasks still running on a released companion finish first.
        for old in released { old.session.finishTasksAndInvalidate() }
        let task = make(companion.session)
        companion.router.route(task, to: delegate)
        return task
    }
}

/// A companion session's delegate: each task's data, download and completion callbacks go to its
/// own delegate; redirect decisions and challenges go to the app's session delegate, as the task
/// would have had them.
final class CompanionRouter: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate, Sendable {
    private let owner: Locked<WeakSession>
    private let receivers = Locked<[Int: any URLSessionTaskDelegate & Sendable]>([:])

    private struct WeakSession: @unchecked Sendable {
        weak var session: URLSession?
    }

    init(owner: URLSession) {
        self.owner = Locked(WeakSession(session: owner))
    }

    func route(_ task: URLSessionTask, to delegate: any URLSessionTaskDelegate & Sendable) {
        receivers.withLock { $0[task.taskIdentifier] = delegate }
    }

    private func receiver(of task: URLSessionTask) -> (any URLSessionTaskDelegate & Sendable)? {
        receivers.withLock { $0[task.taskIdentifier] }
    }

    /// The app's session and its task delegate, if it has one.
    private var app: (URLSession, any URLSessionTaskDelegate)? {
        guard let session = owner.current.session, let delegate = session.delegate as? any URLSessionTaskDelegate else { return nil }
        return (session, delegate)
    }

    // corelibs hands a task's delegate a 401 and its body before it puts the challenge to the
    // session's delegate, then the answer to the request sent again with the credential. Apple
    // decides the challenge first. So a 401 that carries a challenge is held back, with its
    // body, until the next response replaces it or the task ends with it.
    private let challenged = Locked<[Int: (response: URLResponse, body: Data)]>([:])

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let receiver = receiver(of: dataTask) as? any URLSessionDataDelegate else { return completionHandler(.cancel) }
        let http = response as? HTTPURLResponse
        if http?.statusCode == 401, http?.value(forHTTPHeaderField: "WWW-Authenticate") != nil {
            challenged.withLock { $0[dataTask.taskIdentifier] = (response, Data()) }
            return completionHandler(.allow)
        }
        challenged.withLock { _ = $0.removeValue(forKey: dataTask.taskIdentifier) }
        receiver.urlSession(session, dataTask: dataTask, didReceive: response, completionHandler: completionHandler)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let held = challenged.withLock { challenged in
            guard challenged[dataTask.taskIdentifier] != nil else { return false }
            challenged[dataTask.taskIdentifier]?.body.append(data)
            return true
        }
        if !held { (receiver(of: dataTask) as? any URLSessionDataDelegate)?.urlSession(session, dataTask: dataTask, didReceive: data) }
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {
        (receiver(of: downloadTask) as? any URLSessionDownloadDelegate)?.urlSession(
            session, downloadTask: downloadTask, didWriteData: bytesWritten, totalBytesWritten: totalBytesWritten,
            totalBytesExpectedToWrite: totalBytesExpectedToWrite)
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        (receiver(of: downloadTask) as? any URLSessionDownloadDelegate)?.urlSession(
            session, downloadTask: downloadTask, didFinishDownloadingTo: location)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let receiver = receivers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let (response, body) = challenged.withLock({ $0.removeValue(forKey: task.taskIdentifier) }),
            let dataTask = task as? URLSessionDataTask, let receiver = receiver as? any URLSessionDataDelegate
        {
            receiver.urlSession(session, dataTask: dataTask, didReceive: response) { _ in }
            if !body.isEmpty { receiver.urlSession(session, dataTask: dataTask, didReceive: body) }
        }
        receiver.urlSession(session, task: task, didCompleteWithError: error)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard let (appSession, delegate) = app else { return completionHandler(request) }
        appSession.delegateQueue.addOperation {
            delegate.urlSession(
                appSession, task: task, willPerformHTTPRedirection: response, newRequest: request, completionHandler: completionHandler)
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let (appSession, delegate) = app else { return completionHandler(.performDefaultHandling, nil) }
        appSession.delegateQueue.addOperation {
            delegate.urlSession(appSession, task: task, didReceive: challenge, completionHandler: completionHandler)
        }
    }
}

extension UploadSource {
    /// A stream of the file's first ``length`` bytes, read as the session asks for them.
    func bodyStream() -> InputStream {
        UploadBodyStream(self)
    }
}

/// The file's first `length` bytes as an `InputStream` (corelibs reads a subclass through
/// `open()`, `hasBytesAvailable` and `read(_:maxLength:)`). A file that ends early is an error,
/// never a short body passed off as complete.
final class UploadBodyStream: InputStream {
    private let source: UploadSource
    private var offset: Int64 = 0
    private var status = Stream.Status.notOpen
    private var failure: (any Error)?

    init(_ source: UploadSource) {
        self.source = source
        super.init(data: Data())
    }

    override func open() { if status == .notOpen { status = .open } }
    override func close() { status = .closed }
    override var streamStatus: Stream.Status { status }
    override var streamError: (any Error)? { failure }
    override var hasBytesAvailable: Bool { status == .open }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        guard status == .open else { return status == .atEnd ? 0 : -1 }
        guard offset < source.length else {
            status = .atEnd
            return 0
        }
        let count = source.read(at: offset, into: buffer, count: maxLength)
        guard count > 0 else {
            // The file ended before the length taken, or could not be read: the upload fails, and
            // the file, checked afterwards, says why.
            status = .error
            failure = URLError(.requestBodyStreamExhausted)
            return -1
        }
        offset += Int64(count)
        return count
    }

    override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>) -> Bool {
        false
    }
}

#else

let bodyStreamsCanDeclareTheirLength = true

extension URLSession {
    /// The task of this session that `make` makes, with `delegate` as its own delegate.
    func delegatedTask<Made: URLSessionTask>(
        _ delegate: any URLSessionTaskDelegate & Sendable, make: (URLSession) -> Made
    ) -> Made {
        let task = make(self)
        task.delegate = delegate
        return task
    }
}

extension UploadSource {
    /// The read end of a bound pair of streams that a ``BodyPump`` fills with the file's first
    /// ``length`` bytes (Apple's sessions read a body stream through private calls that a
    /// subclass of `InputStream` lacks; a bound pair is the documented way).
    func bodyStream() -> InputStream {
        var input: InputStream?
        var output: OutputStream?
        Stream.getBoundStreams(withBufferSize: BodyPump.pieceSize, inputStream: &input, outputStream: &output)
        guard let input, let output else { return InputStream(data: Data()) }
        let pump = BodyPump(source: self, output: output)
        pump.start()
        whenSent { pump.stop() }
        return input
    }
}

/// Writes a file's first `length` bytes into the write end of a bound pair as the reader makes
/// room, on one serial queue; closes it at the length taken, or early when the file shrank (the
/// session then fails the task: the body ended before its Content-Length), or when the reader
/// is gone.
final class BodyPump: NSObject, StreamDelegate, @unchecked Sendable {
    static let pieceSize = 64 << 10
    private static let queue = DispatchQueue(label: "HTTPClient.BodyPump")

    private let source: UploadSource
    private let output: OutputStream
    // Touched on `queue` only.
    private var offset: Int64 = 0
    private var pending = Data()
    /// The stream holds its delegate weakly: the pump keeps itself until the stream ends.
    private var keptAlive: BodyPump?

    init(source: UploadSource, output: OutputStream) {
        self.source = source
        self.output = output
    }

    func start() {
        Self.queue.async { [self] in
            keptAlive = self
            output.delegate = self
            CFWriteStreamSetDispatchQueue(output as CFWriteStream, Self.queue)
            output.open()
        }
    }

    func stream(_ stream: Stream, handle event: Stream.Event) {
        switch event {
        case .hasSpaceAvailable: writeNextPiece()
        case .errorOccurred, .endEncountered: end()
        default: break
        }
    }

    private func writeNextPiece() {
        if pending.isEmpty {
            var piece = Data(count: Self.pieceSize)
            let count = piece.withUnsafeMutableBytes { source.read(at: offset, into: $0.baseAddress!, count: $0.count) }
            // The length taken is sent, or the file ended early: either way the stream ends here.
            guard count > 0 else { return end() }
            pending = piece.prefix(count)
            offset += Int64(count)
        }
        let written = pending.withUnsafeBytes { output.write($0.bindMemory(to: UInt8.self).baseAddress!, maxLength: $0.count) }
        guard written >= 0 else { return end() }
        pending.removeFirst(written)
    }

    /// Ends the stream if it is still open: the upload is over, read or not.
    func stop() {
        Self.queue.async { [self] in end() }
    }

    private func end() {
        guard keptAlive != nil else { return }
        output.delegate = nil
        CFWriteStreamSetDispatchQueue(output as CFWriteStream, nil)
        output.close()
        keptAlive = nil
    }
}

#endif
