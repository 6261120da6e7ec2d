import HeapGraph

extension RunProtocol {
  /// What the command asks of the agent, written to the program's environment
  /// (``environment``) and read back from it by the agent (``init(environment:)``).
  package struct Settings: Sendable, Hashable {
    /// Where each checked process writes its exit snapshot.
    package var runDirectory: String
    /// Shell patterns of the executable names of the processes to check.
    package var processPatterns: [String]
    /// Whether the agent records an allocation stack for every object.
    package var recordsStacks: Bool
    /// Where snapshots taken on the snapshot signal go.
    package var snapshotDirectory: String
    /// The signal that takes a snapshot while the program runs, if any.
    package var snapshotSignal: Int32?
    /// Seconds between the snapshots taken while the program runs, if any are asked for.
    package var snapshotInterval: Double?
    /// The mean bytes between sampled allocations, when only a sample is tracked.
    package var sampleInterval: Int?
    /// Whether the agent writes a heap profile at exit and beside each snapshot.
    package var writesProfiles: Bool

    package init(
      runDirectory: String, processPatterns: [String], recordsStacks: Bool, snapshotDirectory: String, snapshotSignal: Int32?,
      snapshotInterval: Double? = nil, sampleInterval: Int? = nil, writesProfiles: Bool = false
    ) {
      self.runDirectory = runDirectory
      self.processPatterns = processPatterns
      self.recordsStacks = recordsStacks
      self.snapshotDirectory = snapshotDirectory
      self.snapshotSignal = snapshotSignal
      self.snapshotInterval = snapshotInterval
      self.sampleInterval = sampleInterval
      self.writesProfiles = writesProfiles
    }

    /// The settings as environment variables.
    package var environment: [String: String] {
      var environment = [
        Variable.runDirectory.rawValue: runDirectory,
        Variable.processes.rawValue: processPatterns.joined(separator: "\n"),
        Variable.stacks.rawValue: recordsStacks ? "1" : "0",
        Variable.snapshotDirectory.rawValue: snapshotDirectory,
      ]
      if let snapshotSignal { environment[Variable.snapshotSignal.rawValue] = String(snapshotSignal) }
      if let snapshotInterval { environment[Variable.snapshotInterval.rawValue] = String(snapshotInterval) }
      if let sampleInterval { environment[Variable.sampleInterval.rawValue] = String(sampleInterval) }
      if writesProfiles { environment[Variable.profiles.rawValue] = "1" }
      return environment
    }

    /// The settings `value` (a variable's value, `nil` when unset) holds, or `nil` without a run
    /// directory: the process was not started by `leak-detector run`.
    package init?(environment value: (Variable) -> String?) {
      guard let runDirectory = value(.runDirectory), !runDirectory.isEmpty else { return nil }
      self.init(
        runDirectory: runDirectory,
        processPatterns: value(.processes).map { $0.split(separator: "\n").map(String.init) } ?? [],
        recordsStacks: value(.stacks) != "0",
        snapshotDirectory: value(.snapshotDirectory) ?? ".",
        snapshotSignal: value(.snapshotSignal).flatMap { Int32($0) }.flatMap { $0 > 0 ? $0 : nil },
        snapshotInterval: value(.snapshotInterval).flatMap { Double($0) }.flatMap { $0 > 0 && $0.isFinite ? $0 : nil },
        sampleInterval: value(.sampleInterval).flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil },
        writesProfiles: value(.profiles) == "1")
    }
  }
}
