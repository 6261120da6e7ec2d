import HeapGraph

/// The second phase of a capture: a walk that followed every strong reference from its starts
/// (``HeapWalk/run()``), with no roots yet.
///
/// A whole-heap capture roots it next (``rooted(in:)``); a cycle search, which needs no roots,
/// ends it here (``resolved(retainedByCaller:)``).
struct WalkedHeap {
  /// The finished walk; the next phase may extend it from what holds its objects.
  private var walk: HeapWalk

  /// Follows every strong reference from the starts of `walk` (``HeapWalk/run()``).
  init(walking walk: consuming HeapWalk) {
    walk.expandQueued()
    self.walk = walk
  }

  /// The heap with its roots: what libdispatch and the main run loop hold until it runs
  /// (walked from there, when it leads to captured objects), then the captured objects a word of
  /// `regions` refers to. See ``RootedHeap``.
  consuming func rooted(in regions: [RootRegion]) -> RootedHeap {
    RootedHeap(rooting: walk, in: regions)
  }

  /// The walk's heap without roots, for a cycle search: the conservative references that the
  /// targets' reference counts account for are kept, once the retains the caller holds for the
  /// capture (`retainedByCaller`, by address) are subtracted
  /// (``HeapWalk/resolveConservativeReferences(explainedElsewhere:)``).
  consuming func resolved(retainedByCaller: [UInt: Int]) -> CapturedHeap {
    walk.resolveConservativeReferences { retainedByCaller[$0, default: 0] }
    return walk.finished()
  }
}
