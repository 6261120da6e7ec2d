/// What a heap object is: an instance of a class, the context of a closure, a box, or a task.
///
/// The capture side knows it and writes it as the `kind` field of an object record
/// (`"class"`, `"closure"`, `"box"`, `"task"`). Snapshots that lack the field, or name a kind this
/// version does not know, leave it unknown, and ``inferred(fromTypeName:)`` guesses it from the
/// type name:
///
/// ```swift
/// for name in ["MyApp.Feed", "closure #1 in MyApp.Feed.load()", "box<Int>", "Task"] {
///   print(name, "->", ObjectKind.inferred(fromTypeName: name).rawValue)
/// }
/// ```
/// ```text
/// MyApp.Feed -> class
/// closure #1 in MyApp.Feed.load() -> closure
/// box<Int> -> box
/// Task -> task
/// ```
public enum ObjectKind: String, Sendable, Hashable, CaseIterable {
  /// An instance of a class.
  case classInstance = "class"
  /// A closure context: the heap object that holds a closure's captures.
  case closureContext = "closure"
  /// A box: the heap box of a captured `var`, or of an indirect enum payload.
  case box = "box"
  /// A task of Swift concurrency that has not completed: it holds its closure and what its
  /// suspended async frames hold.
  case task = "task"

  /// The kind that `typeName` suggests, for objects whose snapshot does not record it.
  ///
  /// Capture names closure contexts by their function (`closure #1 in MyApp.Feed.load()`, a
  /// `reabstraction thunk`, or `closure context` when the function is unknown; see
  /// `DemangledName.isClosure`) and boxes by
  /// their content (`box<Int>`, or `box`), and tasks `Task`; every other name is taken for a
  /// class (whose names carry their module: `MyApp.Task`).
  public static func inferred(fromTypeName typeName: String) -> ObjectKind {
    if DemangledName.namesClosure(typeName) || DemangledName.namesReabstractionThunk(typeName) || typeName == "closure context" {
      return .closureContext
    }
    if typeName.hasPrefix("box<") || typeName == "box" {
      return .box
    }
    if typeName == "Task" {
      return .task
    }
    return .classInstance
  }
}
