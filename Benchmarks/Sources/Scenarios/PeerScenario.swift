import Foundation
import HTTPClient
import HTTPClientStubs

/// One cell of the peer table (`ratios --peers`): a configuration of stubs, how many, which
/// one the request asks for, and whether the stubs name a full URL or a path.
public struct PeerScenario: Sendable, CustomStringConvertible {
    /// Which registered stub the request is for.
    public enum Target: String, Sendable {
        /// The only stub.
        case only
        /// The first registered (a scan, newest first, tries it last).
        case first
        /// The last registered.
        case last
    }

    /// The kind of stubs.
    public let configuration: StubConfiguration
    /// How many are registered.
    public let stubs: Int
    /// Which one the request is for.
    public let target: Target
    /// Full URL or path.
    public let registration: StubConfiguration.Registration

    /// The name `--profile-peer` and `--profile-inprocess` take: `paths-1000-last-url`.
    public var description: String { "\(configuration.name)-\(stubs)-\(target.rawValue)-\(registration.rawValue)" }

    /// The rows of the peer table, each with its cells (registered by full URL and by path,
    /// target first and last where there are many stubs).
    public static let rows: [(label: String, cells: [PeerScenario])] = [
        ("one stub", cells(.exactPaths, stubs: 1)),
        ("1,000 stubs differing by query, target first / last", cells(.queryVariants, stubs: 1_000)),
        ("1,000 paths, target first / last", cells(.exactPaths, stubs: 1_000)),
        ("1,000 stubs differing by a header, first / last", cells(.headers, stubs: 1_000)),
        ("POST matched by JSON body", cells(.jsonBodies, stubs: 1)),
    ]

    /// Every cell, row by row.
    public static var all: [PeerScenario] { rows.flatMap(\.cells) }

    /// The cell named `name` (see ``description``).
    public static func named(_ name: String) -> PeerScenario? { all.first { $0.description == name } }

    private static func cells(_ configuration: StubConfiguration, stubs: Int) -> [PeerScenario] {
        StubConfiguration.Registration.allCases.flatMap { registration in
            (stubs == 1 ? [Target.only] : [.first, .last]).map {
                PeerScenario(configuration: configuration, stubs: stubs, target: $0, registration: registration)
            }
        }
    }

    /// A fresh registry of this cell's stubs, and the request it is measured with.
    public func prepare() -> (registry: StubRegistry, request: URLRequest) {
        let built = configuration.registry(stubs: stubs, registeredBy: registration)
        return (built.registry, target == .last ? built.last : built.first)
    }
}
