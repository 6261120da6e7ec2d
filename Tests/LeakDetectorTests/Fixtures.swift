import Foundation
import LeakDetector

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Keeps fixtures on the heap: the optimizer cannot stack-promote what escapes into here.
nonisolated(unsafe) var fixtureSink: [AnyObject] = []

@inline(never)
func escaping<T: AnyObject>(_ object: T) -> T {
  fixtureSink.append(object)
  return object
}

/// The address of `object`, as references report it.
func address(of object: AnyObject) -> UInt {
  UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
}

final class Leaf {
  var id = 0
}

protocol Named {}
protocol ClassNamed: AnyObject {}
extension Leaf: Named, ClassNamed {}

struct Pair {
  var strong: Leaf
  weak var weakLeaf: Leaf?
  var count = 0
}

enum State {
  case idle
  case loaded(Leaf)
  case failed(Leaf, code: Int)
}

indirect enum Tree {
  case leaf(Leaf)
  case node(Tree, Tree)
}

struct BadThing: Error, @unchecked Sendable {
  var culprit: Leaf
}

class BaseHolder {
  var inherited: Leaf? = Leaf()
}

final class Everything: BaseHolder {
  var strong = Leaf()
  weak var weakLeaf: Leaf?
  unowned var unownedLeaf: Leaf
  unowned(unsafe) var unsafeLeaf: Leaf
  var optional: Leaf? = Leaf()
  var none: Leaf?
  var pair: Pair
  var tuple: (Leaf, Int) = (Leaf(), 1)
  var state: State = .failed(Leaf(), code: 3)
  var tree: Tree = .node(.leaf(Leaf()), .leaf(Leaf()))
  var existential: any Named = Leaf()
  var classExistential: any ClassNamed = Leaf()
  var anyValue: Any = Pair(strong: Leaf(), weakLeaf: nil)
  var anyObject: AnyObject = Leaf()
  var error: (any Error)? = BadThing(culprit: Leaf())
  var array: [Leaf] = [Leaf(), Leaf()]
  var contiguous: ContiguousArray<Leaf> = [Leaf()]
  var dictionary: [String: Leaf] = ["first": Leaf()]
  var keyedByObject: [ObjectIdentifier: Leaf] = [:]
  var set: Set<Wrapper> = [Wrapper(Leaf())]
  var nested: [Int: [Leaf]] = [7: [Leaf()]]
  var numbers = [1, 2, 3]
  var name = "everything"

  init(other: Leaf) {
    unownedLeaf = other
    unsafeLeaf = other
    pair = Pair(strong: Leaf(), weakLeaf: other)
    super.init()
    weakLeaf = other
  }
}

struct Wrapper: Hashable {
  var leaf: Leaf
  init(_ leaf: Leaf) { self.leaf = leaf }
  static func == (lhs: Wrapper, rhs: Wrapper) -> Bool { lhs.leaf === rhs.leaf }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(leaf)) }
}

final class GenericHolder<Value> {
  var value: Value
  var extra: Leaf? = Leaf()
  init(_ value: Value) { self.value = value }
}

actor Counter {
  var leaf = Leaf()
  var count = 0
}

class Animal {
  var owner: Leaf?
}

final class Dog: Animal {
  var toy = Leaf()
}

/// `"LeakDetectorTests.Leaf"` → `"Leaf"`, for readable assertions.
func unqualified(_ text: String) -> String {
  text.replacingOccurrences(of: "LeakDetectorTests.", with: "")
}

/// `(label, ownership, target type)` of each reference, unqualified.
func summary(_ references: [ObjectReference]) -> [String] {
  references.map { "\($0.label) \($0.ownership.rawValue) \(unqualified($0.targetTypeName))" }
}

final class ClassError: Error, @unchecked Sendable {
  var culprit = Leaf()
}

indirect enum Outcome {
  case pending(Leaf)
  case finished(Result<[UInt8], any Error>)
  case retrying(Leaf, after: Outcome)
  case idle
}

final class Request {
  var state: Outcome = .idle
  var typed: Result<Leaf, Never>?
  var steps: [(request: Leaf, attempt: Int)] = []
  lazy var formatter: Leaf = Leaf()
}
