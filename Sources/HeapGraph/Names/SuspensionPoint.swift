/// Where a task that is not running waits: a node of a snapshot between the task and what its
/// suspended async frames hold, named after the function it waits in, whose stack is the task's
/// async backtrace (the resume point of that function first, then its callers' up to the task's
/// first function). It has no address: it is not an allocation, as a closure value is not.
///
/// ```text
/// Task.suspended → await in closure #1 in countAStream(into:finishing:).async frame → AsyncStream<Int>._Context<>
/// ```
public enum SuspensionPoint {
  /// The prefix of a suspension point's type name.
  public static let typeNamePrefix = "await in "
  /// The label of the edge from the task to where it waits.
  public static let taskEdgeLabel = "suspended"
  /// The label of the edges from where the task waits to what its frames hold.
  public static let frameEdgeLabel = "async frame"

  /// `await in closure #1 in App.Worker.start()`, for the function `function`, or for its
  /// resume partial function (`(2) await resume partial function for closure #1 in …`).
  public static func typeName(function: String) -> String {
    var name = Substring(function)
    for marker in [" await resume partial function for ", " suspend resume partial function for "] {
      if name.hasPrefix("("), let range = name.firstRange(of: marker) { name = name[range.upperBound...] }
    }
    return typeNamePrefix + name
  }

  /// Whether the demangled function name `function` is the standard library's or Concurrency's
  /// code (`(extension in Swift):Swift.Task<…>.sleep(for:)` is emitted into the program that
  /// calls it): not where a report says a task waits.
  public static func isStandardLibraryFunction(_ function: String) -> Bool {
    var name = Substring(function)
    for marker in [" await resume partial function for ", " suspend resume partial function for ", " of "] {
      if let range = name.firstRange(of: marker), name.hasPrefix("(") || name.hasPrefix("generic") || name.hasPrefix("merged") {
        name = name[range.upperBound...]
      }
    }
    if name.hasPrefix("static ") { name = name.dropFirst("static ".count) }
    return ["Swift.", "_Concurrency.", "(extension in Swift)", "(extension in _Concurrency)"].contains { name.hasPrefix($0) }
  }

  /// Whether `typeName` is a suspension point's.
  public static func isSuspensionPoint(_ typeName: String) -> Bool {
    typeName.hasPrefix(typeNamePrefix)
  }
}
