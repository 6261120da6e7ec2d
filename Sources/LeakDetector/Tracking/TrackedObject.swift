import HeapGraph

/// A live object the allocation tracker knows about. It does not keep the object alive: use
/// `address` only while you know the object exists, or through a snapshot.
public struct TrackedObject: Sendable, Hashable {
  /// The object's address.
  public var address: UInt
  /// The module-qualified type name, e.g. `MyApp.Feed`.
  public var typeName: String
  /// The generation it was allocated in.
  public var generation: Int
  /// The allocation size in bytes.
  public var size: Int
  /// The allocation stack's id in the tracker (0 when no stack was captured).
  package var stackID: UInt32

  /// Where the object was allocated, innermost frame first, tracker frames removed; empty when
  /// stacks were not captured. Symbolized on first use and cached per code address.
  ///
  /// ```text
  /// [MyApp.Feed.__allocating_init() (Feed.swift:3), MyApp.makeFeed() -> MyApp.Feed (Screen.swift:12), …]
  /// ```
  public var allocationStack: [StackFrame] {
    AllocationTracker.allocationStack(ofStack: stackID)
  }
}
