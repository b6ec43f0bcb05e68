// A file that imports both this package's HTTPClient and AsyncHTTPClient, whose main types are
// both named `HTTPClient` (the example the HTTPClient documentation shows, line for line; the
// root package's ReadmeIsCompiledTests checks it). A module and a type of the same name cannot
// be told apart by `HTTPClient.HTTPClient`: the type shadows the module. A scoped import makes
// the plain name this package's; AsyncHTTPClient's is reached through its module's name.

import AsyncHTTPClient
import Foundation
import HTTPClient
import LoopbackServer
import Testing

import struct HTTPClient.HTTPClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ServerSuites {
    @Suite("HTTPClient beside AsyncHTTPClient")
    struct CoexistenceExamplesTests {
        @Test func bothClientsInOneFile() async throws {
            let server = try await LoopbackServer.start()
            let ours = HTTPClient(session: URLSession(configuration: .ephemeral), baseURL: server.baseURL)
            let theirs = AsyncHTTPClient.HTTPClient(eventLoopGroupProvider: .singleton)

            let response = try await ours.get("echo")
            let other = try await theirs.execute(HTTPClientRequest(url: "\(server.baseURL)/echo"), timeout: .seconds(10))

            #expect(response.statusCode == 200)
            #expect(other.status.code == 200)
            try await theirs.shutdown()
            try await server.stop()
        }
    }
}
