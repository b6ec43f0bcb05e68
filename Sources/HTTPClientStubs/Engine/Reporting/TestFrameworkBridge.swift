import Foundation

/// How the engine reaches XCTest and Swift Testing without linking them.
///
/// This module is linked by apps (UI-test stubbing through ``StubEnvironment``) and by `httpc`,
/// so it must not import a test framework: an iOS app that links XCTest fails to link or to
/// launch. The calls into the frameworks live in the thin `HTTPClientMocks` module, which test
/// targets depend on; it declares a class conforming to this protocol, and the engine finds
/// that class by name at run time.
///
/// Why a class found by name rather than the alternatives:
/// - Looking up the frameworks' own functions by mangled name (the way some reporting
///   libraries do) breaks when a framework's signature changes between toolchains; here
///   every call into XCTest and Testing is type-checked by the compiler.
/// - Looking up a C symbol of our own with `dlsym` does not work on Linux: test executables
///   are linked without `--export-dynamic`, so their symbols are not in the dynamic table.
/// - `NSClassFromString` reads the runtime's type records (the Objective-C class list on
///   Darwin, Swift's type metadata sections on Linux), which every linked module registers
///   whatever the linker flags, and which dead stripping keeps.
package protocol TestFrameworkBridge: Sendable {
    init()
    /// Records a failure in the running test at `site`.
    func record(message: String, at site: CallSite, createdInSwiftTesting: Bool)
    /// The running Swift Testing test's name, or `nil` outside one.
    var currentSwiftTestingTestName: String? { get }
}
