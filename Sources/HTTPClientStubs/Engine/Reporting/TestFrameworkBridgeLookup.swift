import Foundation

/// Finds the bridge `HTTPClientMocks` declares, when that module is in the process.
package enum TestFrameworkBridgeLookup {
    /// The bridge's name, module included; a test checks that the declaration agrees.
    package static let className = "HTTPClientMocks.TestFrameworks"

    /// Looked up once: modules are not unloaded, and a test process links everything at launch.
    package static let loaded: (any TestFrameworkBridge)? =
        (NSClassFromString(className) as? any TestFrameworkBridge.Type)?.init()
}
