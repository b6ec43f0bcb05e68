import Foundation

/// The checks every download destination and upload source passes, in one place: the client
/// runs them before anything is sent, the sessions' upload methods again as they read.
/// The tests of download destinations (`@testable`) call its checks directly.
enum TransferFiles {
    /// The file a download to `destination` replaces: `destination` itself (new or a regular
    /// file), or the target of a symbolic link to a regular file (the link stays a link).
    /// Anything else is refused: a directory, a FIFO, a device, a socket, a link to nothing or to
    /// one of those, a folder that does not exist.
    static func replaceableFile(at destination: URL) throws(TransferFileError) -> URL {
        guard TransferFiles.namesAFile(destination) else {
            throw TransferFileError(.downloadDestination, path: destination.absoluteString, problem: .notAFileURL)
        }
        do {
            return try AtomicFile.replaceableFile(at: destination, createsFolder: false)
        } catch {
            let problem: TransferFileError.Problem =
                switch error {
                case .notARegularFile(let kind): .notARegularFile(TransferFileError.Kind(notRegular: kind))
                case .missingFolder: .missingFolder
                case .unusable(let reason): .unwritable(reason: reason)
                }
            throw TransferFileError(.downloadDestination, path: destination.path, problem: problem)
        }
    }

    /// Whether `url` can name a file here: a `file:` URL (`path` ignores the scheme, so
    /// `http://h/etc/passwd` would name `/etc/passwd`), and not one written as a folder (`x/`;
    /// `path` drops the `/`, so a regular file `x` would be taken), unless a folder is there, which
    /// is then refused as what it is.
    static func namesAFile(_ url: URL) -> Bool {
        url.isFileURL && (!url.hasDirectoryPath || FileKind(at: url.path, followingLinks: true) == .directory)
    }

    /// Puts the complete, validated download `file` at `destination` in one step (see
    /// ``replaceableFile(at:)`` for what it replaces); `file` is gone afterwards. On any error
    /// the previous file is untouched and no temporary file stays.
    static func move(_ file: URL, to destination: URL) throws(TransferFileError) {
        let target: URL
        do {
            // Checked again: the destination may have changed while the body came.
            target = try replaceableFile(at: destination)
        } catch {
            unlink(file.path)
            throw error
        }
        do {
            try AtomicFile.replace(target, withContentsOf: file)
        } catch {
            throw TransferFileError(.downloadDestination, path: destination.path, problem: .unwritable(reason: error.localizedDescription))
        }
    }
}

extension TransferFileError.Kind {
    /// How an error names `kind`, found where a regular file was wanted: a link whose target
    /// cannot be found is a link to nothing.
    init(notRegular kind: FileKind) {
        switch kind {
        case .directory: self = .directory
        case .fifo: self = .fifo
        case .characterDevice: self = .characterDevice
        case .blockDevice: self = .blockDevice
        case .socket: self = .socket
        case .symbolicLink, .missing, .unusable: self = .danglingSymlink
        case .regular, .other: self = .other
        }
    }
}

extension TransferFileError {
    /// The error as a session reports it: a `URLError` with the code `URLSession` uses for
    /// such a file, this error under `NSUnderlyingErrorKey` (the client finds it there) and
    /// its description.
    func urlError(for request: URLRequest) -> URLError {
        let code: URLError.Code =
            switch problem {
            case .missing: .fileDoesNotExist
            case .notARegularFile(.directory): .fileIsDirectory
            case .unwritable: .cannotWriteToFile
            case .missingFolder, .notARegularFile, .notAFileURL, .sizeChanged, .unreadable: .cannotOpenFile
            }
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: description, NSUnderlyingErrorKey: self]
        if let url = request.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return URLError(code, userInfo: userInfo)
    }
}

extension URLResponse {
    /// Whether a body of `received` bytes is shorter than this response's `Content-Length`
    /// says: a transfer cut short (cancelled, or the connection lost) that a session reported
    /// as complete. Only where the length is the body's: not for `HEAD`, 1xx, 204 and 304, nor
    /// for an encoded body (the session decodes `Content-Encoding`, the length is the encoded one).
    func isCutShort(after received: Int64, for request: URLRequest) -> Bool {
        guard let http = self as? HTTPURLResponse, expectedContentLength > 0, received < expectedContentLength,
            request.httpMethod?.uppercased() != "HEAD", http.statusCode >= 200, http.statusCode != 204, http.statusCode != 304
        else { return false }
        let encoding = http.value(forHTTPHeaderField: "Content-Encoding")?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return encoding.isEmpty || encoding == "identity"
    }

    /// The error of a body cut short at `received` bytes.
    func cutShortError(after received: Int64, for request: URLRequest) -> URLError {
        var userInfo: [String: Any] = [
            NSLocalizedDescriptionKey:
                "The body was cut short: \(received) of the \(expectedContentLength) bytes its Content-Length announced arrived."
        ]
        if let url = request.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return URLError(.networkConnectionLost, userInfo: userInfo)
    }
}
