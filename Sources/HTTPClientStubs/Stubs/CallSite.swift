import Foundation
import HTTPClient

/// A place in source code: where a registry or stub was created, or where a check was called.
public struct CallSite: Sendable, CustomStringConvertible {
    public let fileIDString: StaticString
    public let filePathString: StaticString
    public let line: Int
    public let column: Int

    public init(fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
        fileIDString = fileID
        filePathString = filePath
        self.line = Int(line)
        self.column = Int(column)
    }

    public var fileID: String { "\(fileIDString)" }
    public var filePath: String { "\(filePathString)" }

    /// `Module/File.swift:12`.
    public var description: String { "\(fileID):\(line)" }
}
