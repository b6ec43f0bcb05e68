import Foundation
import HTTPClient
import LoopbackServer
import Testing

/// One session for the whole suite: on Linux a session per request is slower and has crashed
/// on teardown (see the research notes).
let session = URLSession(configuration: .ephemeral)

/// Runs `body` against a fresh server, stopping it afterwards.
func withServer<Result>(_ body: (LoopbackServer, HTTPClient) async throws -> Result) async throws -> Result {
    let server = try await LoopbackServer.start()
    do {
        let result = try await body(server, HTTPClient(session: session, baseURL: server.baseURL))
        try await server.stop()
        return result
    } catch {
        try? await server.stop()
        throw error
    }
}

/// What `/echo` saw.
struct Echo: Decodable, Sendable {
    let method: String
    let path: String
    let query: String
    let headers: [[String]]
    let body: String
    let bodyCount: Int

    /// Every value of a header, compared case-insensitively.
    func header(_ name: String) -> [String] {
        headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
    }
}

func patternData(count: Int) -> Data {
    var data = Data(count: count)
    data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
        for index in 0..<count { buffer[index] = patternByte(index) }
    }
    return data
}

func checksum(of data: Data) -> UInt64 {
    var sum: UInt64 = 0
    data.withUnsafeBytes { byteChecksum($0, into: &sum) }
    return sum
}

/// Every suite of this package runs inside this one, one suite at a time: the large transfers
/// measure the process's resident memory, which suites running beside them would inflate.
@Suite(.serialized) enum ServerSuites {}
