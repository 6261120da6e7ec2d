import HeapGraph
import LeakDetectorRun

extension RunCommand {
  /// With `--profile`: each checked process's heap profile, which its agent wrote in the run
  /// directory when the process exited, copied to `path` (numbered as `--snapshot`'s files are,
  /// in the order of the processes' ids). A process that left none is said on standard error.
  func writeExitProfiles(of processIDs: [Int32], runDirectory: String, to path: String) {
    for (index, processID) in processIDs.enumerated() {
      let destination = Self.numbered(path, index, of: processIDs.count)
      do {
        try writeFile(try readFile("\(runDirectory)/\(RunProtocol.exitProfileFileName(processID: processID))"), to: destination)
      } catch {
        standardError.write("leak-detector: no heap profile of process \(processID) at \(destination): \(error.message)\n")
      }
    }
  }
}
