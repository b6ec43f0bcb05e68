import Foundation
import HTTPClient

extension SessionBehaviour {
    /// How a ``StubServer`` answers: as a server, not a session. No redirect is followed (a 3xx
    /// stub goes out as a 3xx answer), no cookie is kept or added (each `Set-Cookie` goes out as
    /// a header line), nothing is cached, no answer is too late (the client keeps its own clock),
    /// and a HEAD without a stub of its own is answered by the GET's.
    static let server: SessionBehaviour = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        var behaviour = SessionBehaviour(configuration: configuration, followsRedirects: false)
        behaviour.timeoutForRequest = 0
        behaviour.answersHeadAsGet = true
        return behaviour
    }()
}
