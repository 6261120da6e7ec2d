/// How a report introduces an object's site, by what the object is: a closure's site is where it
/// is written, a task's where it was made, a suspension point's where the task waits, any other
/// object's where it was allocated.
///
/// ```text
/// - Task.suspended  made at startForgottenStream() (WaitingTasks.swift:18)
/// - await in closure #1 in startForgottenStream().async frame  waits at WaitingTasks.swift:18
/// ```
public enum SitePhrase {
  /// `written at`, `made at`, `waits at` or `allocated at`, for an object of `kind` named `typeName`.
  public static func of(kind: ObjectKind?, typeName: String) -> String {
    if SuspensionPoint.isSuspensionPoint(typeName) { return "waits at" }
    switch kind ?? ObjectKind.inferred(fromTypeName: typeName) {
    case .closureContext: return "written at"
    case .task: return "made at"
    default: return "allocated at"
    }
  }

  /// Whether the site is a source location only (a closure's or a suspension point's code), not
  /// a frame with its function.
  public static func isLocationOnly(kind: ObjectKind?, typeName: String) -> Bool {
    (kind ?? ObjectKind.inferred(fromTypeName: typeName)) == .closureContext
  }
}
