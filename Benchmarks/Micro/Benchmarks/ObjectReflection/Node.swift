/// A shape with plain stored references: strong, optional and weak.
final class Node {
  var value: Int
  var next: Node?
  weak var parent: Node?

  init(value: Int, next: Node? = nil) {
    self.value = value
    self.next = next
  }
}
