import HeapGraph
import LeakDetectorRun

#if canImport(Glibc)
  import Glibc
#endif

/// The agent of `leak-detector run` in a process that runs under it, asked for a snapshot by
/// `capture PID`: its tracker recorded each object's allocation stack and generation, which a
/// snapshot from the process's memory alone cannot tell.
struct RunningAgent {
  let processID: Int32
  let signal: Int32
  let snapshotDirectory: String

  /// The agent of process `processID`, when the agent is loaded there and listens for the
  /// snapshot signal (`run --snapshot-signal`); `nil` otherwise. `withoutSignal` is set when the
  /// agent is loaded but has no snapshot signal.
  static func of(processID: Int32, withoutSignal: inout Bool) -> RunningAgent? {
    guard let maps = try? FileBytes.read("/proc/\(processID)/maps"),
      String(decoding: maps, as: UTF8.self).contains("libLeakDetectorAgent.so"),
      let environment = try? FileBytes.read("/proc/\(processID)/environ")
    else { return nil }
    var variables: [String: String] = [:]
    for entry in environment.split(separator: 0) {
      let text = String(decoding: entry, as: UTF8.self)
      guard let equals = text.firstIndex(of: "=") else { continue }
      variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
    }
    guard let signal = variables[RunProtocol.Variable.snapshotSignal.rawValue].flatMap({ Int32($0) }) else {
      withoutSignal = true
      return nil
    }
    var directory = variables[RunProtocol.Variable.snapshotDirectory.rawValue] ?? "."
    if !directory.hasPrefix("/") {
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let length = readlink("/proc/\(processID)/cwd", &buffer, buffer.count - 1)
      guard length > 0 else { return nil }
      directory = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/" + directory
    }
    return RunningAgent(processID: processID, signal: signal, snapshotDirectory: directory)
  }

  /// Sends the snapshot signal and waits until the agent has written the snapshot it takes (it
  /// writes atomically, renaming a whole file into place, which wakes the wait), within `limit`;
  /// its path.
  func takeSnapshot(within limit: Duration = .seconds(600)) throws(InputFailure) -> String {
    // Watched before the signal, so that no rename is missed.
    let watch = inotify_init1(Int32(IN_CLOEXEC))
    defer { if watch >= 0 { close(watch) } }
    if watch >= 0 { _ = inotify_add_watch(watch, snapshotDirectory, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE)) }
    let before = latestSnapshot()
    guard kill(processID, signal) == 0 else {
      throw InputFailure(message: "cannot signal process \(processID): \(String(cString: strerror(errno)))")
    }
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
      if let latest = latestSnapshot(), latest.number > (before?.number ?? 0) { return latest.path }
      guard kill(processID, 0) == 0 else { throw InputFailure(message: "process \(processID) ended before its agent wrote the snapshot") }
      // Until something lands in the directory; a second at most, to notice the process's end.
      var ready = pollfd(fd: watch, events: Int16(POLLIN), revents: 0)
      if poll(&ready, 1, 1000) > 0 {
        var events = [UInt8](repeating: 0, count: 4096)
        _ = read(watch, &events, events.count)
      }
    }
    throw InputFailure(message: "the agent of process \(processID) wrote no snapshot in \(snapshotDirectory) within \(limit)")
  }

  /// The snapshot of the highest number this process took so far, in its snapshot directory.
  private func latestSnapshot() -> (number: Int, path: String)? {
    guard let directory = opendir(snapshotDirectory) else { return nil }
    defer { closedir(directory) }
    var latest: (number: Int, path: String)?
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      if let number = RunProtocol.liveSnapshotNumber(name, processID: processID), number > (latest?.number ?? 0) {
        latest = (number, "\(snapshotDirectory)/\(name)")
      }
    }
    return latest
  }
}
