import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

/// A private directory: the one a `run` shares with the agents of the processes it checks (each
/// writes its exit snapshot there, ``RunProtocol/exitSnapshotFileName(processID:)``, or why it
/// refused to check, ``RunProtocol/Refusal``), or one for Graphviz's files; it is removed
/// afterwards.
struct TemporaryDirectory {
  let path: String

  init(prefix: String = "leak-detector-run") throws(InputFailure) {
    let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array("\(base)/\(prefix).XXXXXX".utf8CString)
    guard mkdtemp(&template) != nil else {
      throw InputFailure(message: "\(base): cannot create a temporary directory: \(String(cString: strerror(errno)))")
    }
    path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The exit snapshots written, in the order of their processes' ids, each with how long its
  /// capture took when the agent said so.
  func exitSnapshots() throws(InputFailure) -> [(snapshot: HeapSnapshot, duration: CaptureDuration?)] {
    var snapshots: [(pid: Int32, snapshot: HeapSnapshot)] = []
    for name in entries() {
      guard let processID = RunProtocol.processID(ofExitSnapshot: name) else { continue }
      let file = "\(path)/\(name)"
      let bytes = try readFile(file)
      do {
        snapshots.append((processID, try HeapSnapshot(binaryBytes: bytes)))
      } catch {
        throw InputFailure(message: "\(file): \(error.description)")
      }
    }
    return snapshots.sorted { $0.pid < $1.pid }.map { process in
      let seconds = try? readFile("\(path)/\(RunProtocol.captureDurationFileName(processID: process.pid))")
      return (process.snapshot, seconds.flatMap { CaptureDuration(secondsText: String(decoding: $0, as: UTF8.self)) })
    }
  }

  /// The processes the agents refused to check, with why, in the order of their ids (a file
  /// that is not a refusal is skipped).
  func refusals() -> [RunProtocol.Refusal] {
    entries().compactMap { name -> (Int32, RunProtocol.Refusal)? in
      guard let processID = RunProtocol.Refusal.processID(ofFile: name), let bytes = try? readFile("\(path)/\(name)"),
        let refusal = RunProtocol.Refusal(fileBytes: bytes)
      else { return nil }
      return (processID, refusal)
    }.sorted { $0.0 < $1.0 }.map(\.1)
  }

  /// Removes the directory and what the agents wrote in it.
  func remove() {
    for name in entries() { unlink("\(path)/\(name)") }
    rmdir(path)
  }

  private func entries() -> [String] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }
}
