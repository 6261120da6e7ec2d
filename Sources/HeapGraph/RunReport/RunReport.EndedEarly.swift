extension RunReport {
  /// A process the agent checked that ended before it exited, so it left no exit snapshot: a
  /// signal killed it (a crash, an abort, `SIGKILL`), or it ended without running its exit
  /// handlers (`_exit`). Its leaks are unknown, and the report says so rather than leave it out.
  ///
  /// ```text
  /// Not checked PetsPackageTests.xctest (pid 4242): it was killed by signal 11 (Segmentation fault) before it exited, so its leaks are unknown
  /// ```
  package struct EndedEarly: Sendable, Hashable {
    /// Its command line and pid (`PetsPackageTests.xctest (pid 4242)`).
    package var process: String
    package var processID: Int32
    /// The fault or abort that ended it, when the agent saw one: its number and its
    /// description (`Segmentation fault`).
    package var signal: (number: Int32, description: String)?
    /// Whether another checked process started it: a test that expects a crash (an exit test,
    /// a crash assertion) runs the tests' binary as a child, and judges how it ended itself.
    package var startedByCheckedProcess: Bool

    package init(process: String, processID: Int32, signal: (number: Int32, description: String)?, startedByCheckedProcess: Bool = false) {
      self.process = process
      self.processID = processID
      self.signal = signal
      self.startedByCheckedProcess = startedByCheckedProcess
    }

    /// Why it was not checked, as a clause.
    package var reason: String {
      let ending =
        signal.map { "it was killed by signal \($0.number) (\($0.description)) before it exited" }
        ?? "it ended without exiting normally (killed by a signal it could not see, such as SIGKILL, or by _exit)"
      return ending + ", so its leaks are unknown"
    }

    /// `PetsPackageTests.xctest (pid 4242) was not checked: it was killed by …`.
    package var message: String { "\(process) was not checked: \(reason)" }

    package static func == (lhs: Self, rhs: Self) -> Bool {
      (lhs.process, lhs.processID, lhs.signal?.number, lhs.signal?.description, lhs.startedByCheckedProcess) == (
        rhs.process, rhs.processID, rhs.signal?.number, rhs.signal?.description, rhs.startedByCheckedProcess
      )
    }

    package func hash(into hasher: inout Hasher) {
      hasher.combine(processID)
      hasher.combine(signal?.number)
    }
  }
}
