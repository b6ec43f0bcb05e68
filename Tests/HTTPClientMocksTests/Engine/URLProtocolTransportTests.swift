import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient
@testable import HTTPClientStubs

@Suite("URLProtocol transport")
struct URLProtocolTransportTests {
    let failures = CollectedFailures()

    @Test func twoRegistriesGetTwoProtocolClassesAndKeepTheirOwnStubs() async throws {
        let first = StubRegistry(reporting: .disabled)
        let second = StubRegistry(reporting: .disabled)
        first.stub(.get, "/who").respond(.text("first"))
        second.stub(.get, "/who").respond(.text("second"))
        #expect(ObjectIdentifier(first.urlProtocolClass) != ObjectIdentifier(second.urlProtocolClass))
        #expect(ObjectIdentifier(first.urlProtocolClass) == ObjectIdentifier(first.urlProtocolClass))
        #expect(try await HTTPClient(session: first.makeURLSession()).get(testURL("https://h/who")).text == "first")
        #expect(try await HTTPClient(session: second.makeURLSession()).get(testURL("https://h/who")).text == "second")
    }

    @Test func aSessionWhoseRegistryIsGoneFailsSayingSo() async throws {
        var stubs: StubRegistry? = StubRegistry(reporting: .disabled)
        stubs?.stub(.get, "/who").respond(.text("gone"))
        let session = try #require(stubs?.makeURLSession())
        weak let registry = stubs
        stubs = nil
        try #require(registry == nil)
        let error = await #expect(throws: HTTPClientError.self) { try await HTTPClient(session: session).get(testURL("https://h/who")) }
        #expect(error?.description.contains("The StubRegistry of this URLSession no longer exists") == true)
    }

    @Test func aClassMadeByOtherSlotsIsNotServedTheSharedSlotsRegistries() async throws {
        // Slot 0 of a private set of slots and slot 0 of the shared ones have the same number:
        // a class is found by what it is, so it is never handed another set's registry.
        let slots = ProtocolSlots(bits: 2)
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/who").respond(.text("private"))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [slots.protocolClass(for: stubs, behaviour: SessionBehaviour(configuration: .ephemeral))]
        #expect(ProtocolSlots.shared.lease(of: try #require(configuration.protocolClasses?.first)) == nil)
        let error = await #expect(throws: HTTPClientError.self) {
            try await HTTPClient(session: URLSession(configuration: configuration)).get(testURL("https://h/who"))
        }
        #expect(error?.description.contains("no longer exists") == true)
    }

    @Test func mockURLSessionHonoursLatencyOnlyWhenAsked() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/slow").respond(.text("late").delayed(by: 0.2))
        let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()
        HTTPClient(session: MockURLSession(stubs: stubs)).get(url: testURL("https://h/slow"), completion: recorder.record)
        #expect(recorder.callCount == 1)  // synchronous by default

        let simulated = HTTPClient(session: MockURLSession(stubs: stubs, simulatesLatency: true))
        let clock = ContinuousClock()
        let start = clock.now
        #expect(try await simulated.get(testURL("https://h/slow")).text == "late")
        #expect(clock.now - start >= .milliseconds(200))
    }

    @Test func mockURLSessionCancelsADelayedResponse() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        // Far longer than any stall between starting and cancelling, even under load.
        stubs.stub(.get, "/slow").respond(.text("late").delayed(by: 30))
        let session = MockURLSession(stubs: stubs, simulatesLatency: true)
        let task = session.nextDataTask
        let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()
        HTTPClient(session: session).get(url: testURL("https://h/slow"), completion: recorder.record)
        #expect(recorder.callCount == 0)
        task.cancel()
        #expect(recorder.value?.failure?.isCancelled == true)
        #expect(recorder.callCount == 1)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

@Suite("URLProtocol slots")
struct ProtocolSlotTests {
    @Test func whenEverySlotIsTakenRegistriesGetAClassWhoseRequestsFailClearly() async throws {
        let slots = ProtocolSlots(bits: 2)
        let behaviour = SessionBehaviour(configuration: .ephemeral)
        var registries = (0..<4).map { _ in StubRegistry(reporting: .disabled) }
        let classes = registries.map { ObjectIdentifier(slots.protocolClass(for: $0, behaviour: behaviour)) }
        #expect(Set(classes).count == 4)

        let overflow = StubRegistry(reporting: .disabled)
        #expect(ObjectIdentifier(slots.protocolClass(for: overflow, behaviour: behaviour)) == ObjectIdentifier(StubURLProtocol.self))

        registries.removeFirst()  // its slot is free again
        #expect(ObjectIdentifier(slots.protocolClass(for: overflow, behaviour: behaviour)) != ObjectIdentifier(StubURLProtocol.self))

        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubURLProtocol.self]
        let error = await #expect(throws: HTTPClientError.self) {
            try await HTTPClient(session: URLSession(configuration: configuration)).get(testURL("https://h/x"))
        }
        #expect(error?.description.contains("StubRegistry instances with URLSessions are alive at once") == true)
        withExtendedLifetime(registries) {}
    }
}
