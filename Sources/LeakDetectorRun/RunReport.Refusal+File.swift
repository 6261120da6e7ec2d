import HeapGraph

extension RunReport.Refusal {
  private static let fileNameSuffix = ".refused"

  /// The refusal of the process `process` describes, for `reason` (an
  /// ``AgentRuntimeCheck/refusalReason``): the agent says it on the process's standard error and
  /// leaves it in the run directory (``fileName(processID:)``), where the command reads it back
  /// (``init(fileBytes:processID:)``) to exit with it when nothing was checked, or to note it in
  /// the report.
  package init(process: RunProtocol.ProcessDescription, reason: String) {
    self.init(process: process.description, processID: process.processID, reason: reason)
  }

  /// `not checking Leaky (pid 4242): it has its own copy of the Swift runtime linked in …`.
  package var message: String {
    "not checking \(process): \(reason)"
  }

  /// `4242.refused`: the name of the file that says why process `processID` was not checked.
  package static func fileName(processID: Int32) -> String {
    "\(processID)\(fileNameSuffix)"
  }

  /// The process whose refusal `fileName` is, or `nil` when it names none.
  package static func processID(ofFile fileName: String) -> Int32? {
    guard fileName.hasSuffix(fileNameSuffix) else { return nil }
    return Int32(fileName.dropLast(fileNameSuffix.count))
  }

  /// The file's contents: the process's description on the first line, the reason on the
  /// second (a line break inside either is written as a space).
  package var fileBytes: [UInt8] {
    let lines = [process, reason].map { $0.split(whereSeparator: \.isNewline).joined(separator: " ") }
    return Array((lines.joined(separator: "\n") + "\n").utf8)
  }

  /// The refusal of process `processID` (the file's name says which) that a file holds, or `nil`
  /// when it is not one.
  package init?(fileBytes: [UInt8], processID: Int32) {
    let lines = String(decoding: fileBytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
    guard lines.count >= 2, !lines[0].isEmpty, !lines[1].isEmpty else { return nil }
    self.init(process: String(lines[0]), processID: processID, reason: String(lines[1]))
  }
}
