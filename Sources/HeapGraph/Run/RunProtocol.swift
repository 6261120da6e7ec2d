/// How `leak-detector run` and the agent it preloads into the program talk: the environment the
/// command starts the program with (``Settings``), the exit snapshot each checked process leaves
/// in the run directory, and how a snapshot names its process (``ProcessDescription``).
///
/// The command writes what the agent reads, and reads what the agent writes, through these
/// definitions only. The agent's C loader, which reads two of the variables before any Swift code
/// runs, spells them in `CLeakAgent.h`, and a test keeps that spelling equal to ``Variable``'s.
package enum RunProtocol {
  /// The environment variables the command sets for the agent.
  package enum Variable: String, CaseIterable, Sendable {
    /// The private directory the exit snapshots go to; without it, the agent does nothing.
    case runDirectory = "LEAK_DETECTOR_RUN_DIRECTORY"
    /// The shell patterns, one a line, of the executable names of the processes to check.
    case processes = "LEAK_DETECTOR_PROCESSES"
    /// `0` when allocation stacks are not recorded, `1` when they are (the default).
    case stacks = "LEAK_DETECTOR_STACKS"
    /// Where snapshots taken on the snapshot signal go.
    case snapshotDirectory = "LEAK_DETECTOR_SNAPSHOT_DIRECTORY"
    /// The number of the signal that takes a snapshot, when there is one.
    case snapshotSignal = "LEAK_DETECTOR_SNAPSHOT_SIGNAL"
  }

  private static let exitSnapshotSuffix = ".exit.heapsnapshot.bin"

  /// `4242.exit.heapsnapshot.bin`: the name of the exit snapshot (binary encoding) a checked
  /// process writes in the run directory.
  package static func exitSnapshotFileName(processID: Int32) -> String {
    "\(processID)\(exitSnapshotSuffix)"
  }

  /// The process whose exit snapshot `fileName` is, or `nil` when it names no exit snapshot.
  package static func processID(ofExitSnapshot fileName: String) -> Int32? {
    guard fileName.hasSuffix(exitSnapshotSuffix) else { return nil }
    return Int32(fileName.dropLast(exitSnapshotSuffix.count))
  }
}
