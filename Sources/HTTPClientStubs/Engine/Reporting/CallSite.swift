import Foundation
import HTTPClient

/// A place in source code: where a registry or stub was created, or where a check was called.
/// Package, not public: users never make one; reports print it as `Module/File.swift:12`.
package struct CallSite: Sendable, CustomStringConvertible {
    /// The `#fileID` of the call, as the compiler gave it.
    package let fileIDString: StaticString
    /// The `#filePath` of the call.
    package let filePathString: StaticString
    /// The line.
    package let line: Int
    /// The column.
    package let column: Int

    /// A place, from the `#fileID`, `#filePath`, `#line` and `#column` of a call.
    package init(fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
        fileIDString = fileID
        filePathString = filePath
        self.line = Int(line)
        self.column = Int(column)
    }

    /// `Module/File.swift`.
    package var fileID: String { "\(fileIDString)" }
    /// The full path of the source file.
    package var filePath: String { "\(filePathString)" }

    /// `Module/File.swift:12`.
    package var description: String { "\(fileID):\(line)" }
}
