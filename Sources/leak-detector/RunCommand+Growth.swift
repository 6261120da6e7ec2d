import HeapGraph
import LeakDetectorRun

#if canImport(Glibc)
  import Glibc
#endif

extension RunCommand {
  /// With `--growth`: for each process checked, what grew in every step over the snapshots it
  /// took while it ran (its exit snapshot is left out: a program that shuts down frees what it
  /// held), written after the leak report on the stream the text report goes to. Returns whether
  /// anything grew.
  func reportGrowth(of processes: [RunReport.Process]) throws -> Bool {
    var grew = false
    let stream = gating.output.output == nil && gating.format == .text ? standardOutput : standardError
    for process in processes {
      guard let processID = process.processID else { continue }
      let files = liveSnapshots(of: processID)
      stream.write("\n")
      guard files.count >= 3 else {
        stream.write(
          "Growth of \(process.description): \(files.count) snapshot\(files.count == 1 ? "" : "s") taken while it ran; "
            + "at least three are needed (a longer run, a shorter --snapshot-interval, or more signals).\n")
        continue
      }
      var options = HeapAnalysis.Options()
      options.ownCode = gating.sourceRoot.ownCode
      let tallies = try files.map { path in
        HeapTally(analysis: HeapAnalysis(graph: ObjectGraph(gating.output.shareable(try loadSnapshot(path))), options: options))
      }
      let growth = HeapGrowth(tallies: tallies)
      grew = grew || growth.hasGrowth
      stream.write("Growth of \(process.description):\n")
      let text = growth.reportText(snapshots: files.map { String($0.split(separator: "/").last ?? "") }, names: gating.output.names)
      stream.write(gating.output.usesColor(forTerminal: isatty(stream.descriptor) == 1) ? ReportColoring.colored(text) : text.description)
    }
    return grew
  }

  /// The snapshots process `processID` wrote in the snapshot directory while it ran, in the
  /// order it took them.
  private func liveSnapshots(of processID: Int32) -> [String] {
    guard let directory = opendir(snapshotDirectory) else { return [] }
    defer { closedir(directory) }
    var found: [(number: Int, path: String)] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      if let number = RunProtocol.liveSnapshotNumber(name, processID: processID) { found.append((number, snapshotDirectory + "/" + name)) }
    }
    return found.sorted { $0.number < $1.number }.map(\.path)
  }
}
