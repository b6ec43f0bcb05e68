import HTTPClientMocks
import HTTPClientStubs
import Testing

/// The engine links no test framework and finds `HTTPClientMocks`' bridge by name; these
/// tests fail if the name and the declaration drift apart, which would silently turn every
/// test failure into a line on standard error.
@Suite("Test framework bridge")
struct TestFrameworkBridgeTests {
    @Test func theEngineLooksUpTheNameTheBridgeIsDeclaredUnder() {
        #expect(String(reflecting: TestFrameworks.self) == TestFrameworkBridgeLookup.className)
    }

    @Test func aTestProcessFindsTheBridgeAndSeesTheRunningTest() throws {
        let bridge = try #require(TestFrameworkBridgeLookup.loaded)
        #expect(bridge is TestFrameworks)
        #expect(bridge.currentSwiftTestingTestName == "aTestProcessFindsTheBridgeAndSeesTheRunningTest()")
    }
}
