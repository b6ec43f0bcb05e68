import Foundation

/// A local file that `-o` or `-T` cannot use, found before anything is sent (exit status 2).
struct LocalFileError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
