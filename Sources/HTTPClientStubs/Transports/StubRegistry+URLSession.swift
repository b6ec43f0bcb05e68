import Foundation
import HTTPClient

extension StubRegistry {
    /// A `URLSession` whose requests are answered by this registry through the URLProtocol
    /// transport. Keep the registry alive as long as the session.
    ///
    /// The session behaves as one made from `configuration` would against a server: cookies
    /// from its `httpCookieStorage` are sent and `Set-Cookie` stored there, redirects are
    /// followed, answers later than the timeout fail with `URLError(.timedOut)`.
    ///
    /// - Parameters:
    ///   - configuration: The configuration to start from; this registry's protocol class is put
    ///     at the head of its `protocolClasses`.
    ///   - followsRedirects: `false` delivers 3xx answers as they are.
    public func makeURLSession(configuration: URLSessionConfiguration = .ephemeral, followsRedirects: Bool = true) -> URLSession {
        install(in: configuration, followsRedirects: followsRedirects)
        return URLSession(configuration: configuration)
    }

    /// Puts this registry's protocol class at the head of `configuration.protocolClasses`, for
    /// code that creates its own `URLSession` from a configuration you pass it. The class
    /// reads cookie storage, cookie policy and timeout from `configuration` now: change them
    /// before this call.
    ///
    /// The class sends the stored cookies itself, by RFC 6265, so this sets the configuration's
    /// `httpShouldSetCookies` to `false` (what it was is kept for the class): swift-corelibs-foundation
    /// would otherwise put every cookie of the storage for the host, unfiltered, into each
    /// request before the class sees it, replacing a `Cookie` header the request has.
    public func install(in configuration: URLSessionConfiguration, followsRedirects: Bool = true) {
        var behaviour = SessionBehaviour(configuration: configuration, followsRedirects: followsRedirects)
        // Installed before: the configuration's flag is the one set below, not the app's.
        if let installed = configuration.protocolClasses?.first as? StubURLProtocol.Type,
            let (_, previous) = ProtocolSlots.shared.lease(of: installed)
        {
            behaviour.sendsCookies = previous.sendsCookies
        }
        let protocolClass: AnyClass = ProtocolSlots.shared.protocolClass(for: self, behaviour: behaviour)
        let others = (configuration.protocolClasses ?? []).filter { !($0 is StubURLProtocol.Type) }
        configuration.protocolClasses = [protocolClass] + others
        configuration.httpShouldSetCookies = false
    }

    /// The `URLProtocol` subclass that serves this registry, for a configuration you assemble
    /// yourself: it keeps no cookies and no response cache, and follows redirects
    /// (``install(in:followsRedirects:)`` reads the configuration instead).
    package var urlProtocolClass: AnyClass {
        var behaviour = SessionBehaviour(configuration: .ephemeral)
        behaviour.cookieStorage = nil
        behaviour.urlCache = nil
        return ProtocolSlots.shared.protocolClass(for: self, behaviour: behaviour)
    }
}
