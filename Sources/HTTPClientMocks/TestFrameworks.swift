import Foundation
@_exported import HTTPClientStubs

#if canImport(Testing)
import Testing
#endif
#if canImport(XCTest)
import XCTest
#endif

/// The one place that calls XCTest and Swift Testing. The engine (`HTTPClientStubs`) finds this
/// class by name at run time, so apps and `httpc` link the engine without a test framework
/// while tests, which depend on this module, get failures reported natively.
/// See `TestFrameworkBridge` for why the lookup works this way.
public final class TestFrameworks: NSObject, TestFrameworkBridge {
    override package init() {}

    package func record(message: String, at site: CallSite, createdInSwiftTesting: Bool) {
        #if canImport(Testing)
        if Test.current != nil || createdInSwiftTesting {
            Issue.record(
                Comment(rawValue: message),
                sourceLocation: SourceLocation(
                    fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column))
            return
        }
        #endif
        #if canImport(XCTest)
        XCTFail(message, file: site.filePathString, line: UInt(site.line))
        #else
        FileHandle.standardError.write(Data("\(site): \(message)\n".utf8))
        #endif
    }

    package var currentSwiftTestingTestName: String? {
        #if canImport(Testing)
        Test.current?.name
        #else
        nil
        #endif
    }
}
