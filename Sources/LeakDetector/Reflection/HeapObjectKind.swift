import CLeakRuntime

/// What kind of heap object a live object is: the snapshot's `ObjectKind`, decided here from
/// the object's metadata and recorded in every capture.
public typealias HeapObjectKind = ObjectKind

extension ObjectKind {
  /// The kind of the heap object whose metadata's kind word is `kindWord`, or `nil` when the
  /// word describes no heap object (a value type's metadata, or garbage).
  ///
  /// On Linux a class's kind word is 0 (there is no Objective-C isa) or a pointer (above the
  /// last enumerated kind); the kinds of `SwiftMetadataLayout.h` say the rest.
  package static func of(kindWord: UInt) -> ObjectKind? {
    switch kindWord {
    case cleak_metadata_kind_class, (cleak_metadata_kind_last_enumerated + 1)...: .classInstance
    case cleak_metadata_kind_heap_local_variable: .closureContext
    case cleak_metadata_kind_heap_generic_local_variable: .box
    case cleak_metadata_kind_task: .task
    default: nil
    }
  }
}
