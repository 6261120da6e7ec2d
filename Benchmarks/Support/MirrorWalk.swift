/// The peer that reflection benchmarks compare `references(of:)` with: how many class instances
/// are reachable through the `Mirror` children of `object`'s stored values, six levels of nested
/// values deep.
///
/// It finds child objects but cannot tell weak from strong, nor see a closure's captures.
public func mirrorReferenceCount(of object: AnyObject) -> Int {
  var found = 0
  func visit(_ value: Any, depth: Int) {
    var mirror: Mirror? = Mirror(reflecting: value)
    while let current = mirror {
      for child in current.children {
        if type(of: child.value) is AnyClass {
          found += 1
        } else if depth < 6 {
          visit(child.value, depth: depth + 1)
        }
      }
      mirror = current.superclassMirror
    }
  }
  visit(object, depth: 0)
  return found
}
