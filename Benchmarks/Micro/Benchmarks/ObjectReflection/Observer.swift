/// A shape with a closure that captures an object, and an unowned back reference.
final class Observer {
  unowned let owner: Node
  var onChange: (() -> Void)?

  init(owner: Node) {
    self.owner = owner
  }
}
