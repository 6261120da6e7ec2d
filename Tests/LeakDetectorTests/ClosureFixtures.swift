import Foundation

final class Feed {
  var name = "feed"
  var onUpdate: (() -> Void)?
  var handlers: [() -> Void] = []
  var erased: Any = 0
  var counterHandler: (() -> Int)?

  @inline(never)
  func bindStrongly() {
    onUpdate = { print(self.name) }
  }

  @inline(never)
  func bindWeakly() {
    onUpdate = { [weak self] in print(self?.name ?? "") }
  }

  @inline(never)
  func bindUnowned() {
    onUpdate = { [unowned self] in print(self.name) }
  }

  @inline(never)
  func bindWithOther(_ leaf: Leaf) {
    onUpdate = { print(self.name, leaf.id) }
  }

  @inline(never)
  func bindCounter() {
    var count = 0
    counterHandler = {
      count += 1
      print(self.name)
      return count
    }
  }

  @inline(never)
  func bindNested() {
    let inner: () -> Void = { print(self.name) }
    onUpdate = { inner() }
  }

  @inline(never)
  func bindInArray() {
    handlers.append({ print(self.name) })
  }

  @inline(never)
  func bindAsAny() {
    let closure: () -> Void = { print(self.name) }
    erased = closure
  }

  @inline(never)
  func bindMethodReference() {
    onUpdate = tick
  }

  func tick() { print(name) }
}
