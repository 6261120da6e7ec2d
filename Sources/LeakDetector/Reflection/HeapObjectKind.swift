/// What kind of heap object a live object is: the snapshot's `ObjectKind`, decided here from
/// the object's metadata and recorded in every capture.
public typealias HeapObjectKind = ObjectKind

extension ObjectKind {
  /// The kind of the heap object whose metadata's kind word is `kindWord`, or `nil` when the
  /// word describes no heap object (a value type's metadata, or garbage).
  ///
  /// On Linux a class's kind word is 0 (there is no Objective-C isa) or a pointer (> 0x7FF);
  /// heap-local variables (closure contexts, boxes) are 0x400, generic boxes 0x500, tasks 0x502.
  static func of(kindWord: UInt) -> ObjectKind? {
    switch kindWord {
    case 0, 0x800...: .classInstance
    case 0x400: .closureContext
    case 0x500: .box
    case 0x502: .task
    default: nil
    }
  }
}
