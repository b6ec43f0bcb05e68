import Foundation
import HTTPClient

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
