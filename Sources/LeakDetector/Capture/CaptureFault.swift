/// A failure to stage in a capture child, for the tests of what the parent does about it.
package enum CaptureFault: Sendable, Hashable {
  /// The child dies of SIGSEGV before reading anything.
  case crash
  /// The child stops making progress (as if waiting on a lock nobody will release).
  case hang
  /// The child exits without sending its result.
  case exitWithoutResult
  /// The child sends bytes that are not a capture.
  case corruptResult

  /// Faults the next captures stage, one per attempt, in order (tests only).
  package static let staged = Locked<[CaptureFault]>([])

  /// The fault for the next attempt, if one is staged.
  static func next() -> CaptureFault? {
    staged.withLock { $0.isEmpty ? nil : $0.removeFirst() }
  }
}
