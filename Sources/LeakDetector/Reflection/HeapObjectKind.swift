/// What kind of heap object a graph node is.
public enum HeapObjectKind: String, Sendable, Hashable {
  /// An instance of a Swift class (including actors and Foundation classes on Linux).
  case classInstance
  /// The context of a closure: the heap object holding its captures.
  case closureContext
  /// The heap box of a captured `var` (or of an `indirect` enum payload).
  case box

  /// The kind of the heap object whose metadata's kind word is `kindWord`, or `nil` when the
  /// word describes no heap object (a value type's metadata, or garbage).
  ///
  /// On Linux a class's kind word is 0 (there is no Objective-C isa) or a pointer (> 0x7FF);
  /// heap-local variables (closure contexts, boxes) are 0x400, generic boxes 0x500.
  static func of(kindWord: UInt) -> HeapObjectKind? {
    switch kindWord {
    case 0, 0x800...: .classInstance
    case 0x400: .closureContext
    case 0x500: .box
    default: nil
    }
  }
}
