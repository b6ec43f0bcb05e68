import Foundation
import HTTPClient
import HTTPClientMocks

/// The two ways a test hands stubs to code: the in-process session and a real `URLSession`
/// over the URLProtocol transport. Fidelity tests run on both: they must behave alike.
enum StubTransport: String, CaseIterable, CustomStringConvertible, Sendable {
    case mockSession
    case urlProtocol

    var description: String { rawValue }

    func session(
        _ stubs: StubRegistry, configuration: URLSessionConfiguration = .ephemeral, followsRedirects: Bool = true
    ) -> any URLSessionProtocol {
        switch self {
        case .mockSession: MockURLSession(stubs: stubs, configuration: configuration, followsRedirects: followsRedirects)
        case .urlProtocol: stubs.makeURLSession(configuration: configuration, followsRedirects: followsRedirects)
        }
    }
}

extension URLResponse {
    var status: Int? { (self as? HTTPURLResponse)?.statusCode }
}
