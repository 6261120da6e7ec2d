import HeapGraph

/// A type that declares references the Swift runtime cannot describe: `Unmanaged` pointers,
/// C pointers to retained objects, caches keyed by raw addresses, storage owned by C code.
///
/// The detector adds these references to the ones it reads from reflection metadata.
///
/// ```swift
/// final class TimerProxy: LeakReflectable {
///   private var target: Unmanaged<Screen>
///   var leakReferences: [DeclaredReference] { [DeclaredReference("target", target.takeUnretainedValue())] }
/// }
/// ```
/// ```text
/// TimerProxy.target -> Screen.timer -> TimerProxy
/// ```
public protocol LeakReflectable: AnyObject {
  /// The references this object holds that reflection cannot see.
  var leakReferences: [DeclaredReference] { get }
}

/// A reference declared by ``LeakReflectable`` or a ``RetainCycleDetector/Configuration``
/// reference provider.
public struct DeclaredReference {
  /// How the holder names it.
  public var label: String
  /// The object referred to.
  public var object: AnyObject
  /// Whether it retains the object; strong by default.
  public var ownership: Ownership

  public init(_ label: String, _ object: AnyObject, ownership: Ownership = .strong) {
    self.label = label
    self.object = object
    self.ownership = ownership
  }
}
