// Retains that no pointer accounts for, and retains that pointers outside the Swift heap do.
// Leaked: three objects retained with their pointers dropped, an object in a cycle with itself
// and one of a pair, each retained once more the same way, and a weakly referenced one. Held: objects
// whose retained pointer sits in a malloc block a global points to, in an `Unmanaged` field of
// an object a global holds, and only as a pointer into the middle of the object.
#if canImport(Glibc)
  import Glibc
#endif

final class DroppedRetain { var payload = [1, 2, 3] }
final class RetainedSelfCycle { var me: RetainedSelfCycle? }
final class RetainedPairFirst { var second: RetainedPairSecond? }
final class RetainedPairSecond { var first: RetainedPairFirst? }
final class WeaklyReferenced {}
final class HeldByMallocBlock {}
final class HeldByUnmanagedField {}
final class HeldByInteriorPointer { var number = 7 }
final class Keeper { var token: Unmanaged<HeldByUnmanagedField>? }

nonisolated(unsafe) weak var weakGlobal: WeaklyReferenced?
nonisolated(unsafe) var mallocBlock: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
nonisolated(unsafe) var keeper: Keeper?
nonisolated(unsafe) var interior: UnsafeMutableRawPointer?

/// Where each retained pointer goes before it is dropped: a store the optimizer keeps, so the
/// object is allocated on the heap in optimized builds too.
nonisolated(unsafe) var lastRetained: UnsafeMutableRawPointer?

@inline(never) func dropRetained(_ object: AnyObject) {
  lastRetained = Unmanaged.passRetained(object).toOpaque()
}

for _ in 0..<3 { dropRetained(DroppedRetain()) }

@inline(never) func selfCycle() {
  let object = RetainedSelfCycle()
  object.me = object
  dropRetained(object)
}
selfCycle()

@inline(never) func pair() {
  let first = RetainedPairFirst()
  let second = RetainedPairSecond()
  first.second = second
  second.first = first
  dropRetained(first)
}
pair()

@inline(never) func weaklyReferenced() {
  let object = WeaklyReferenced()
  weakGlobal = object
  dropRetained(object)
}
weaklyReferenced()

@inline(never) func heldOutsideTheSwiftHeap() {
  mallocBlock = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: 4)
  mallocBlock!.initialize(repeating: nil, count: 4)
  mallocBlock![2] = Unmanaged.passRetained(HeldByMallocBlock()).toOpaque()
  keeper = Keeper()
  keeper!.token = Unmanaged.passRetained(HeldByUnmanagedField())
  interior = Unmanaged.passRetained(HeldByInteriorPointer()).toOpaque() + 16
}
heldOutsideTheSwiftHeap()
lastRetained = nil
print("retains made")
