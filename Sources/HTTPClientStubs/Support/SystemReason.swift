import Foundation

/// Why the system refused a file operation, in its own words ("No such file or directory",
/// "Permission denied", "Is a directory"), instead of a Foundation error's debug dump.
package struct SystemReason: CustomStringConvertible, Sendable {
    package let description: String

    package init(_ error: any Error) {
        let nsError = error as NSError
        if let code = Self.posixCode(error) {
            description = String(cString: strerror(code))
        } else if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? any Error, let code = Self.posixCode(underlying) {
            description = String(cString: strerror(code))
        } else if let message = nsError.userInfo[NSLocalizedDescriptionKey] as? String {
            description = message
        } else {
            description = "\(error)"
        }
    }

    /// The `errno` an error carries, however it is bridged (`POSIXError` on one platform,
    /// an `NSError` in `NSPOSIXErrorDomain` on another).
    private static func posixCode(_ error: any Error) -> Int32? {
        if let posix = error as? POSIXError { return posix.code.rawValue }
        let nsError = error as NSError
        return nsError.domain == NSPOSIXErrorDomain ? Int32(nsError.code) : nil
    }
}
