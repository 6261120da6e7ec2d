/// A generic shape: its reference sits in a generic stored property, next to a tuple holding one.
final class Holder<Value> {
  var value: Value
  var pair: (Node?, Int) = (nil, 0)

  init(_ value: Value) {
    self.value = value
  }
}
