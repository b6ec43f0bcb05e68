import Foundation
import HTTPClient

/// A named state machine of a ``StubRegistry``, as WireMock's scenarios: stubs can require it to be
/// in a state, and move it to another when they answer, so that what a request gets depends on the
/// requests before it (a cart that is empty until a POST, a `/me` that answers only after a login).
///
/// Every scenario starts in ``State/started`` ("Started"). The test can read and set the state;
/// ``StubRegistry/resetScenarios()`` and ``StubRegistry/reset()`` put every scenario back in it.
///
/// ```swift
/// let cart = stubs.scenario("cart")
/// stubs.stub(.get, "/cart").inScenario(cart, when: .started).respond(.json(raw: "[]"))
/// stubs.stub(.post, "/cart").inScenario(cart, when: .started, movingTo: "has items").respond(.status(201))
/// stubs.stub(.get, "/cart").inScenario(cart, when: "has items").respond(.json(raw: #"["pen"]"#))
/// ```
///
/// A handle: scenarios of one name in one registry are one state machine, however many handles
/// name it.
public final class Scenario: Sendable {
    /// One state of a scenario, named by its text: write `"has items"` where a state is expected.
    public struct State: Hashable, Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
        /// The state's name, as reports show it.
        public let name: String

        /// The state named by a string literal: `"has items"`, or `"step \(n)"` for a name made at
        /// run time.
        public init(stringLiteral name: String) {
            self.name = name
        }

        /// The state every scenario starts in, named "Started" as in WireMock.
        public static let started: State = "Started"

        /// The state's name.
        public var description: String { name }
    }

    /// The scenario's name: scenarios of one name in one registry share their state.
    public let name: String
    /// The registry's states, where this scenario's is kept.
    let book: ScenarioBook

    init(name: String, book: ScenarioBook) {
        self.name = name
        self.book = book
    }

    /// The state the scenario is in now. Set it to put the scenario in a state without a request.
    public var state: State {
        get { book.state(of: name) }
        set { book.set(name, to: newValue) }
    }
}

// MARK: - The registry's scenarios

extension StubRegistry {
    /// The scenario named `name` of this registry, in ``Scenario/State/started`` until a stub or
    /// the test moves it. Pass it to ``Stub/inScenario(_:when:movingTo:)``.
    public func scenario(_ name: String) -> Scenario {
        Scenario(name: name, book: scenarios)
    }

    /// Puts every scenario of this registry back in ``Scenario/State/started``; stubs, their calls
    /// and the request log stay. ``reset()`` does this too.
    public func resetScenarios() {
        scenarios.resetAll()
    }
}

extension Stub {
    /// Puts this stub in `scenario`: it answers only while the scenario is in `state` (in any state
    /// when `nil`), and moves the scenario to `next` (when given) as it takes a request, in the same
    /// step, so a request that comes after sees the new state, however many arrive at once.
    ///
    /// ```swift
    /// let session = stubs.scenario("session")
    /// stubs.stub(.post, "/login").inScenario(session, movingTo: "logged in").respond(.status(204))
    /// stubs.stub(.get, "/me").inScenario(session, when: "logged in").respond(.json(raw: #"{"name": "Ada"}"#))
    /// ```
    ///
    /// A request the stub would match in another state is not answered by it: an older stub may
    /// answer it, or the unmatched report says which state the stub needs. The move is made when the
    /// stub takes the request, before its answer is delivered (a delayed or held one included).
    /// - Parameters:
    ///   - scenario: A scenario of this stub's registry (``StubRegistry/scenario(_:)``).
    ///   - state: The state the scenario must be in for this stub to answer; `nil` for any.
    ///   - next: The state this stub moves the scenario to when it answers; `nil` to leave it.
    @discardableResult
    public func inScenario(_ scenario: Scenario, when state: Scenario.State? = nil, movingTo next: Scenario.State? = nil) -> Stub {
        precondition(
            scenario.book === scenarios,
            "Scenario \"\(scenario.name)\" belongs to another StubRegistry: use the scenario(_:) of the stub's registry")
        setScenarioCondition(ScenarioCondition(name: scenario.name, required: state, next: next))
        return self
    }
}

// MARK: - Engine

/// A stub's place in a scenario: the state it needs (any when `nil`) and the state it moves the
/// scenario to when it answers (none when `nil`).
struct ScenarioCondition: Sendable {
    let name: String
    let required: Scenario.State?
    let next: Scenario.State?

    /// Why a stub that matches the request did not answer it, when `states` (a registry's, as
    /// ``ScenarioBook/states(asOf:)`` gave them) are not the ones it needs.
    func miss(in states: [String: Scenario.State]) -> String? {
        guard let required else { return nil }
        let current = states[name] ?? .started
        guard current != required else { return nil }
        return "matches, but scenario \"\(name)\" is in state \"\(current)\", the stub needs \"\(required)\""
    }
}

/// What one request saw of its registry's scenarios while its stubs were tried. Every look at a
/// scenario must find the states of the first look: otherwise a stub moved a scenario meanwhile
/// (two requests racing for a cart's first POST), the stubs tried before may answer now, and the
/// request is tried again from its first stub.
struct ScenarioReading {
    /// The ``ScenarioBook``'s generation at the first look; `nil` before any.
    var generation: Int?
    /// A look found the states changed since the first: stop and try the stubs again.
    var isStale = false
}

/// The states of a registry's scenarios, under one lock. A scenario not listed is in
/// ``Scenario/State/started``. `generation` counts the changes, so that a request can tell whether
/// the states it saw still hold (see ``ScenarioReading``).
///
/// A stub takes this lock inside its own (to check and move its scenario as it claims a request);
/// nothing holds this lock while taking a stub's.
final class ScenarioBook: Sendable {
    private struct Contents {
        var states: [String: Scenario.State] = [:]
        var generation = 0

        mutating func set(_ name: String, to state: Scenario.State) {
            guard (states[name] ?? .started) != state else { return }
            states[name] = state
            generation += 1
        }
    }

    private let contents = Locked(Contents())

    func state(of name: String) -> Scenario.State {
        contents.withLock { $0.states[name] ?? .started }
    }

    func set(_ name: String, to state: Scenario.State) {
        contents.withLock { $0.set(name, to: state) }
    }

    func resetAll() {
        contents.withLock { book in
            guard !book.states.isEmpty else { return }
            book.states = [:]
            book.generation += 1
        }
    }

    /// The states, if they are still those of `generation` (any, when `nil`): for the report of a
    /// request that matched no stub, which must show the states that decided it.
    func states(asOf generation: Int?) -> [String: Scenario.State]? {
        contents.withLock { book in
            guard generation == nil || generation == book.generation else { return nil }
            return book.states
        }
    }

    /// Whether a stub with `condition` may answer now; if so, moves its scenario (the stub's claim
    /// calls this under its own lock, so taking the request and the move are one step). `false`
    /// also when the states changed since `reading`'s first look, which is then stale.
    func enter(_ condition: ScenarioCondition, reading: inout ScenarioReading) -> Bool {
        contents.withLock { book in
            if let seen = reading.generation, seen != book.generation {
                reading.isStale = true
                return false
            }
            reading.generation = book.generation
            if let required = condition.required, (book.states[condition.name] ?? .started) != required { return false }
            if let next = condition.next { book.set(condition.name, to: next) }
            return true
        }
    }

    /// Whether a stub with `condition` would answer now, without moving anything.
    func admits(_ condition: ScenarioCondition) -> Bool {
        guard let required = condition.required else { return true }
        return state(of: condition.name) == required
    }
}
