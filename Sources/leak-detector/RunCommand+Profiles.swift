import HeapGraph

extension RunCommand {
  /// With `--profile`: each checked process's heap profile, which its agent wrote in the run
  /// directory when the process exited, copied to `path` (numbered as `--snapshot`'s files are,
  /// in the order of the processes' ids). A process that left none is said on standard error.
  func writeExitProfiles(of captures: [HeapSnapshot], runDirectory: String, to path: String) {
    for (index, capture) in captures.enumerated() {
      let process = capture.metadata.process ?? "process \(index + 1)"
      guard let processID = RunProtocol.ProcessDescription(process)?.processID else { continue }
      let destination = Self.numbered(path, index, of: captures.count)
      do {
        try writeFile(try readFile("\(runDirectory)/\(RunProtocol.exitProfileFileName(processID: processID))"), to: destination)
      } catch {
        standardError.write("leak-detector: no heap profile of \(process) at \(destination): \(error.message)\n")
      }
    }
  }
}
