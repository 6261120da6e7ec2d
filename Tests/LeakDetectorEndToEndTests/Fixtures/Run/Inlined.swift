// Cycles made on known lines through initializers and a helper that optimized builds inline:
// the tests build it with -O and with -Onone and expect the same lines. Tests name the lines.
#if canImport(Glibc)
  import Glibc
#endif

// Owner has an explicit initializer, Pet an implicit one; both are allocated on line 22.
final class Owner { var name: String; var pets: [Pet] = []; init(_ name: String) { self.name = name } }
final class Pet { var owner: Owner? }
final class Ticker {
  var onTick: (() -> Void)?
  func start() { onTick = { print(self) } }
}
// A House makes its Tag in its initializer (line 16), which optimized builds inline into plant().
final class Tag { var house: House? }
final class House { var tag: Tag?; init() { let tag = Tag(); tag.house = self; self.tag = tag } }
final class Walker { var dog: Dog? }
final class Dog { var walker: Walker? }
@inline(__always) func adopt(by walker: Walker) { let dog = Dog(); dog.walker = walker; walker.dog = dog }
nonisolated(unsafe) weak var lastWalker: Walker?  // makes walkers escape, so -O keeps them on the heap
@inline(never) func plant() {
  for i in 0..<100 { let o = Owner("o\(i)"); let p = Pet(); o.pets.append(p); p.owner = o }
  for _ in 0..<50 { let t = Ticker(); t.start() }
  for _ in 0..<20 { _ = House() }
  for _ in 0..<10 { let walker = Walker(); adopt(by: walker); lastWalker = walker }
}
plant()
print("planted")
