/// What holds a root: the kind of memory or mechanism outside the heap that keeps an object
/// alive. The format keeps it free text (a producer may name its own kinds); these are the ones
/// this package writes and reads with a meaning.
///
/// ```swift
/// builder.addRoot(object: 1, kind: .global, label: "App.shared")
/// ```
public struct RootKind: RawRepresentable, Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
  /// The spelling in the snapshot format (`"kind": "global"`).
  public var rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public init(stringLiteral value: String) {
    rawValue = value
  }

  public var description: String { rawValue }

  /// A global or static variable.
  public static let global: RootKind = "global"
  /// A thread's stack or registers.
  public static let stack: RootKind = "stack"
  /// A thread's thread-local storage (static and dynamic TLS blocks, `pthread_setspecific`
  /// values).
  public static let threadLocal: RootKind = "thread-local"
  /// A mechanism of the runtime or a library (a queue, a run loop, a task).
  public static let runtime: RootKind = "runtime"
  /// Held from outside the snapshot: the object's reference count exceeds the strong references
  /// the snapshot lists into it (the tracker's capture writes the difference as the label).
  public static let external: RootKind = "external"
  /// A root whose record names no kind.
  public static let unknown: RootKind = "unknown"
}
