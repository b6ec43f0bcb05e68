import Foundation
import HTTPClient

/// Leases protocol classes to registries and finds a class's registry.
///
/// Slots are handed out round-robin and freed when their registry is deallocated, so a slot is
/// reused as late as possible (a session outliving its registry gets a clear error, not
/// another test's stubs, unless 1,024 registries were created since). With every slot taken,
/// a registry gets the base class, whose requests fail with an error that says why.
final class ProtocolSlots: Sendable {
    static let shared = ProtocolSlots(bits: 10)

    let bits: Int
    /// How many registries can have a protocol class at once.
    let capacity: Int

    init(bits: Int) {
        self.bits = bits
        capacity = 1 << bits
    }

    private struct Lease {
        weak var registry: StubRegistry?
        let key: LeaseKey
        let behaviour: SessionBehaviour
    }

    /// One class per registry and session behaviour: sessions of one registry made from
    /// configurations that behave alike (same cookie storage, timeout...) share a class.
    private struct LeaseKey: Hashable {
        let registry: ObjectIdentifier
        let behaviour: SessionBehaviour.Key
    }

    private struct State {
        var leases: [Int: Lease] = [:]
        var slotOfKey: [LeaseKey: Int] = [:]
        /// The slot of each class handed out. A class keeps its slot for good, and finding it
        /// here is a hash of one pointer, where `registrySlot` walks ten generic levels.
        var slotOfClass: [ObjectIdentifier: Int] = [:]
        var next = 0
    }

    private let state = Locked(State())

    /// Where pass-through requests go: a plain session without any stub protocol.
    let passthroughSession = URLSession(configuration: .ephemeral)

    func protocolClass(for registry: StubRegistry, behaviour: SessionBehaviour) -> AnyClass {
        let slot = state.withLock { state -> Int? in
            let key = LeaseKey(registry: ObjectIdentifier(registry), behaviour: behaviour.key)
            if let slot = state.slotOfKey[key], state.leases[slot]?.registry === registry { return slot }
            // Free the slots of registries that are gone, then take the next free one.
            for (slot, lease) in state.leases where lease.registry == nil {
                state.leases[slot] = nil
                state.slotOfKey[lease.key] = nil
            }
            // All taken: the base class, whose requests fail with an error that says so.
            guard state.leases.count < capacity else { return nil }
            var slot = state.next
            while state.leases[slot] != nil { slot = (slot + 1) % capacity }
            state.next = (slot + 1) % capacity
            state.leases[slot] = Lease(registry: registry, key: key, behaviour: behaviour)
            state.slotOfKey[key] = slot
            return slot
        }
        guard let slot else { return StubURLProtocol.self }
        let protocolClass: AnyClass = Self.makeClass(RootSlot.self, remainingBits: bits, slot: slot)
        state.withLock { $0.slotOfClass[ObjectIdentifier(protocolClass)] = slot }
        return protocolClass
    }

    /// The registry and session behaviour `protocolClass` serves, while the registry exists;
    /// `nil` for the base class and for a class whose registry is gone.
    func lease(of protocolClass: AnyClass) -> (StubRegistry, SessionBehaviour)? {
        state.withLock { state in
            guard let slot = state.slotOfClass[ObjectIdentifier(protocolClass)], let lease = state.leases[slot],
                let registry = lease.registry
            else { return nil }
            return (registry, lease.behaviour)
        }
    }

    /// Builds `SlotProtocol<Slot<...>>` for `slot`, one binary digit per level, most significant first.
    private static func makeClass<Number: SlotNumber>(_: Number.Type, remainingBits: Int, slot: Int) -> AnyClass {
        guard remainingBits > 0 else { return SlotProtocol<Number>.self }
        if (slot >> (remainingBits - 1)) & 1 == 1 {
            return makeClass(Slot<Number, One>.self, remainingBits: remainingBits - 1, slot: slot)
        }
        return makeClass(Slot<Number, Zero>.self, remainingBits: remainingBits - 1, slot: slot)
    }
}

// Each StubRegistry needs a URLProtocol class of its own, and Swift cannot create classes at run
// time. But it can instantiate generic classes at run time: `SlotProtocol<S>` is a distinct class
// for every type `S`, and the types `Slot<Slot<Root, One>, Zero>`... spell out slot numbers in
// binary. Ten levels give 1,024 classes from two marker types.

protocol SlotBit { static var value: Int { get } }
enum Zero: SlotBit { static var value: Int { 0 } }
enum One: SlotBit { static var value: Int { 1 } }

protocol SlotNumber { static var index: Int { get } }
enum RootSlot: SlotNumber { static var index: Int { 0 } }
enum Slot<Parent: SlotNumber, Bit: SlotBit>: SlotNumber {
    static var index: Int { Parent.index * 2 + Bit.value }
}

final class SlotProtocol<Number: SlotNumber>: StubURLProtocol {
    override class var registrySlot: Int { Number.index }
}
