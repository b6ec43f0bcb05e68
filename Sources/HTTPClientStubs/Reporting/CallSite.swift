import Foundation
import HTTPClient

/// A place in source code: where a registry or stub was created, or where a check was called.
public struct CallSite: Sendable, CustomStringConvertible {
    /// The `#fileID` of the call, as the compiler gave it.
    public let fileIDString: StaticString
    /// The `#filePath` of the call.
    public let filePathString: StaticString
    /// The line.
    public let line: Int
    /// The column.
    public let column: Int

    /// A place, from the `#fileID`, `#filePath`, `#line` and `#column` of a call.
    public init(fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
        fileIDString = fileID
        filePathString = filePath
        self.line = Int(line)
        self.column = Int(column)
    }

    /// `Module/File.swift`.
    public var fileID: String { "\(fileIDString)" }
    /// The full path of the source file.
    public var filePath: String { "\(filePathString)" }

    /// `Module/File.swift:12`.
    public var description: String { "\(fileID):\(line)" }
}
