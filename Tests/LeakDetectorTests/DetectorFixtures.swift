import Foundation
import LeakDetector

/// FBRetainCycleDetector's test objects, in Swift.
final class Node {
  var next: Node?
  weak var weakNext: Node?
  var children: [Node] = []
  var byName: [String: Node] = [:]
  var members: Set<NodeKey> = []
  var handler: (() -> Void)?
  var name: String

  init(_ name: String) { self.name = name }
}

struct NodeKey: Hashable {
  var node: Node
  static func == (lhs: NodeKey, rhs: NodeKey) -> Bool { lhs.node === rhs.node }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(node)) }
}

class BaseWithParent {
  var parent: AnyObject?
}

final class ChildOfBase: BaseWithParent {}

struct Holder {
  var strongNode: Node?
  weak var weakNode: Node?
}

final class StructOwner {
  var holder = Holder()
}

protocol ViewDelegate: AnyObject {
  func didTap()
}

final class ListView {
  weak var delegate: ViewDelegate?
  var strongDelegate: ViewDelegate?
}

final class ListController: ViewDelegate {
  var view = ListView()
  func didTap() {}
}

final class Box<Value> {
  var value: Value
  init(_ value: Value) { self.value = value }
}

enum Loadable {
  case loading(Node)
  case loaded(Node, count: Int)
}

final class LoadableOwner {
  var state: Loadable?
}

final class ClosureOwner {
  var actions: [String: () -> Void] = [:]
  var list: [() -> Void] = []
  var optionalAction: (() -> Void)?
  var helper: Node?
  let id = 1

  @inline(never) func storeInDictionary() { actions["tap"] = { print(self.id) } }
  @inline(never) func storeInList() { list.append({ print(self.id) }) }
  @inline(never) func storeViaHelper() {
    let helper = Node("helper")
    self.helper = helper
    helper.handler = { print(self.id) }
  }
  @inline(never) func storeMixed(_ other: Node) {
    optionalAction = { [weak self, unowned other] in print(self?.id ?? 0, other.name) }
  }
  @inline(never) func storeMixedStrong(_ other: Node) {
    optionalAction = { [weak other] in print(self.id, other?.name ?? "") }
  }
  @inline(never) func storeNestedWeakInner() {
    optionalAction = {
      let inner = { [weak self] in print(self?.id ?? 0) }
      inner()
      print(self.id)
    }
  }
  @inline(never) func storeNestedWeakBoth() {
    optionalAction = { [weak self] in
      let inner = { [weak self] in print(self?.id ?? 0) }
      inner()
    }
  }
  @inline(never) func storeCapturedVar() {
    var me: ClosureOwner? = self
    let tag = Node("tag")
    // Two captures, so the context is not the box itself: the box is a node of its own.
    optionalAction = {
      print(me?.id ?? 0, tag.name)
      me = nil
    }
  }

  @inline(never) func storeOnlyCapturedVar() {
    var me: ClosureOwner? = self
    // A single captured variable: the box is the closure's context.
    optionalAction = {
      print(me?.id ?? 0)
      me = nil
    }
  }
}

/// Declares an `Unmanaged` reference the runtime cannot see.
final class UnmanagedHolder: LeakReflectable {
  var target: Unmanaged<AnyObject>?
  var leakReferences: [DeclaredReference] {
    target.map { [DeclaredReference("target", $0.takeUnretainedValue())] } ?? []
  }
}

/// A class that declares a reference, and a subclass that inherits the declaration (its
/// conformance is its superclass's).
class DeclaringHolder: LeakReflectable {
  var target: Unmanaged<AnyObject>?
  var leakReferences: [DeclaredReference] {
    target.map { [DeclaredReference("target", $0.takeUnretainedValue())] } ?? []
  }
}

final class InheritingHolder: DeclaringHolder {}

/// Descriptions of the cycles reachable from `object`, unqualified, each rotated to start at its
/// smallest `Type.label` step (cycles of one type otherwise start at the lowest address, which
/// varies from run to run).
func cycleDescriptions(from object: AnyObject, maxLength: Int = 20) -> [String] {
  RetainCycleDetector.cycles(from: object, maxLength: maxLength).map(normalized)
}

/// A cycle's description, unqualified, rotated to start at its smallest `Type.label` step.
func normalized(_ cycle: RetainCycle) -> String {
  let steps = cycle.elements.map { unqualified($0.typeName + ($0.reference.map { "." + $0 } ?? "")) }
  let start = steps.indices.min { steps[$0] < steps[$1] } ?? 0
  let rotated = Array(steps[start...] + steps[..<start])
  return rotated.joined(separator: " -> ") + " -> " + unqualified(cycle.elements[start].typeName)
}
