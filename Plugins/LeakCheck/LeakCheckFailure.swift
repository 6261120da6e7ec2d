/// Why `swift package leak-check` stopped before the tests ran, in one plain sentence.
struct LeakCheckFailure: Error, CustomStringConvertible {
  var description: String

  init(_ description: String) { self.description = description }
}
