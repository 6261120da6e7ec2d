import HeapGraph

/// How `leak-detector run` and the agent it preloads into the program talk: the environment the
/// command starts the program with (``Settings``), the exit snapshot each checked process leaves
/// in the run directory, and how a snapshot names its process (``ProcessDescription``).
///
/// The command writes what the agent reads, and reads what the agent writes, through these
/// definitions only. The agent's C loader, which reads three of the variables before any Swift
/// code runs, spells them in `CLeakPreload.h`, and a test keeps that spelling equal to
/// ``Variable``'s.
package enum RunProtocol {
  /// The environment variables the command sets for the agent.
  package enum Variable: String, CaseIterable, Sendable {
    /// The private directory the exit snapshots go to; without it, the agent does nothing. Its
    /// path is the same from run to run (a link to the run's own directory), and the agent
    /// resolves it when its process starts.
    case runDirectory = "LEAK_DETECTOR_RUN_DIRECTORY"
    /// The shell patterns, one a line, of the executable names of the processes to check.
    case processes = "LEAK_DETECTOR_PROCESSES"
    /// `0` when allocation stacks are not recorded, `1` when they are (the default).
    case stacks = "LEAK_DETECTOR_STACKS"
    /// Where snapshots taken on the snapshot signal go.
    case snapshotDirectory = "LEAK_DETECTOR_SNAPSHOT_DIRECTORY"
    /// The number of the signal that takes a snapshot, when there is one.
    case snapshotSignal = "LEAK_DETECTOR_SNAPSHOT_SIGNAL"
    /// Seconds between the snapshots taken while the program runs, when they are asked for.
    case snapshotInterval = "LEAK_DETECTOR_SNAPSHOT_INTERVAL"
    /// Mean bytes between sampled allocations, when only a sample of them is tracked.
    case sampleInterval = "LEAK_DETECTOR_SAMPLE_INTERVAL"
    /// `1` when the agent writes heap profiles (pprof) at exit and beside each snapshot.
    case profiles = "LEAK_DETECTOR_PROFILES"
    /// The agent library that the preloaded loader loads in a process to check (without it, the
    /// one beside the loader).
    case agentLibrary = "LEAK_DETECTOR_AGENT_LIBRARY"
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

  private static let startedSuffix = ".started"

  /// `4242.started`: the name of the file a process the agent checks writes in the run directory
  /// when it starts (its ``ProcessDescription``), so that the command knows of a process that
  /// ended without an exit snapshot.
  package static func startedFileName(processID: Int32) -> String {
    "\(processID)\(startedSuffix)"
  }

  /// What the file that records a process's start holds: its description, then its parent's id
  /// on a line of its own (a process the tests start, an exit test's, has a checked process
  /// for parent).
  package static func startedFileBytes(process: ProcessDescription, parentProcessID: Int32) -> [UInt8] {
    Array((process.description + "\n\(parentProcessID)\n").utf8)
  }

  /// The description and parent's id that a file written by ``startedFileBytes(process:parentProcessID:)`` holds.
  package static func startedProcess(fileBytes: [UInt8]) -> (description: String, parentProcessID: Int32?)? {
    // The description may hold a line break of an argument's: the parent's id is the last line.
    let lines = String(decoding: fileBytes, as: UTF8.self).split(separator: "\n")
    guard let last = lines.last else { return nil }
    guard lines.count > 1, let parent = Int32(last) else { return (lines.joined(separator: " "), nil) }
    return (lines.dropLast().joined(separator: " "), parent)
  }

  /// The process whose start `fileName` records, or `nil` when it names no such file.
  package static func processID(ofStartedFile fileName: String) -> Int32? {
    guard fileName.hasSuffix(startedSuffix) else { return nil }
    return Int32(fileName.dropLast(startedSuffix.count))
  }

  /// `4242.signal`: the name of the file that holds the number of the fatal signal (a fault or an
  /// abort) that ended checked process `processID`, when one did.
  package static func fatalSignalFileName(processID: Int32) -> String {
    "\(processID).signal"
  }

  private static let exitProfileSuffix = ".exit.pb.gz"

  /// `4242.exit.pb.gz`: the name of the heap profile (pprof, gzipped) a checked process writes
  /// in the run directory when it exits, when profiles are asked for.
  package static func exitProfileFileName(processID: Int32) -> String {
    "\(processID)\(exitProfileSuffix)"
  }

  /// `Server-4242-3.pb.gz`: the name of the heap profile written beside the `number`th snapshot
  /// process `processID` of `program` takes while it runs, when profiles are asked for.
  package static func liveProfileFileName(program: String, processID: Int32, number: Int) -> String {
    "\(program)-\(processID)-\(number).pb.gz"
  }

  private static let liveSnapshotExtension = ".heapsnapshot"

  /// `Server-4242-3.heapsnapshot.json` (or without `.json` for the binary encoding): the name of
  /// the `number`th snapshot process `processID` of `program` takes while it runs (on the
  /// snapshot signal or the interval).
  package static func liveSnapshotFileName(program: String, processID: Int32, number: Int, isJSON: Bool) -> String {
    "\(program)-\(processID)-\(number)\(liveSnapshotExtension)" + (isJSON ? ".json" : "")
  }

  /// The number of the snapshot that `fileName` names, when it is one that process `processID`
  /// took while it ran.
  package static func liveSnapshotNumber(_ fileName: String, processID: Int32) -> Int? {
    var name = Substring(fileName)
    if name.hasSuffix(".json") { name = name.dropLast(5) }
    guard name.hasSuffix(liveSnapshotExtension) else { return nil }
    let parts = name.dropLast(liveSnapshotExtension.count).split(separator: "-")
    guard parts.count >= 3, Int32(parts[parts.count - 2]) == processID, let number = Int(parts[parts.count - 1]), number > 0 else {
      return nil
    }
    return number
  }
}
