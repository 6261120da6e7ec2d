/// The object the allocation loop allocates: a small Swift class instance (32 bytes with its header).
final class SmallObject {
  var first = 0
  var second = 0

  init(_ value: Int) {
    first = value
  }
}
