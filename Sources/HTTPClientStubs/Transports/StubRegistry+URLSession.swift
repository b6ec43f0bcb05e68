import Foundation
import HTTPClient

extension StubRegistry {
    /// A `URLSession` whose requests are answered by this registry through the URLProtocol
    /// transport. Keep the registry alive as long as the session.
    ///
    /// - Parameter configuration: The configuration to start from; this registry's protocol
    ///   class is put at the head of its `protocolClasses`.
    public func makeURLSession(configuration: URLSessionConfiguration = .ephemeral) -> URLSession {
        install(in: configuration)
        return URLSession(configuration: configuration)
    }

    /// Puts this registry's protocol class at the head of `configuration.protocolClasses`, for
    /// code that creates its own `URLSession` from a configuration you pass it.
    public func install(in configuration: URLSessionConfiguration) {
        let protocolClass: AnyClass = urlProtocolClass
        let others = (configuration.protocolClasses ?? []).filter { ObjectIdentifier($0) != ObjectIdentifier(protocolClass) }
        configuration.protocolClasses = [protocolClass] + others
    }

    /// The `URLProtocol` subclass that serves this registry (one per registry).
    public var urlProtocolClass: AnyClass {
        ProtocolSlots.shared.protocolClass(for: self)
    }
}
