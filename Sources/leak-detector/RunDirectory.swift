import HeapGraph
import LeakDetectorRun

#if canImport(Glibc)
  import Glibc
#endif

/// The private directory a `run` shares with the agents of the processes it checks: each writes
/// its exit snapshot there (``RunProtocol/exitSnapshotFileName(processID:)``), or why it refused
/// to check (``RunProtocol/Refusal``). It is removed when the run ends.
///
/// The agents are told a path that is the same from one run to the next,
/// `$TMPDIR/leak-detector-<uid>/run-0` (or `run-1` to `run-15` while earlier slots are held by
/// runs still going: a lock file beside each slot says which are), because SwiftPM keys its
/// manifest cache on the whole environment: a path new at every run made `swift test` compile
/// and run the package's manifest, and each dependency's, again at every run (a quarter of a
/// second for a package without dependencies). The slot is a symbolic link to a directory new at
/// every run, which each agent resolves when it starts, so that a process that outlives its run
/// never writes where a later run reads. When the per-user directory is not private (not a
/// directory of this user's, with no access for others), or every slot is held, the run uses a
/// directory of its own.
struct RunDirectory {
  /// The path the agents are told.
  let path: String
  /// The directory the path leads to, which is this run's alone.
  private let files: TemporaryDirectory
  /// The lock on the slot, held until ``release()``; `nil` for a directory of the run's own.
  private let lockDescriptor: Int32?

  private static let slotCount = 16

  /// A slot of this user's run directory, leading to a new directory, or a new directory when
  /// no slot can be had.
  static func claim() throws(InputFailure) -> RunDirectory {
    if let slot = claimSlot() { return slot }
    let own = try TemporaryDirectory(prefix: "leak-detector-run")
    return RunDirectory(path: own.path, files: own, lockDescriptor: nil)
  }

  private static func claimSlot() -> RunDirectory? {
    let base = "\(TemporaryDirectory.base)/leak-detector-\(getuid())"
    guard makePrivateDirectory(base) else { return nil }
    for slot in 0..<slotCount {
      let lock = open("\(base)/run-\(slot).lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
      guard lock >= 0 else { return nil }
      guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
        close(lock)
        continue
      }
      let path = "\(base)/run-\(slot)"
      removeSlot(path, in: base)
      guard let files = try? TemporaryDirectory(prefix: "run-\(slot)", in: base) else {
        close(lock)
        return nil
      }
      guard symlink(String(files.path.split(separator: "/").last!), path) == 0 else {
        files.remove()
        close(lock)
        return nil
      }
      return RunDirectory(path: path, files: files, lockDescriptor: lock)
    }
    return nil
  }

  /// Removes the slot `path` in `base`, and the directory it leads to (what a run that was
  /// killed left).
  private static func removeSlot(_ path: String, in base: String) {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink(path, &buffer, buffer.count - 1)
    guard length > 0 else { return TemporaryDirectory(path: path).remove() }  // not a link: an empty slot, or a directory
    let target = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if !target.contains("/") { TemporaryDirectory(path: "\(base)/\(target)").remove() }
    unlink(path)
  }

  /// Whether `path` is, or now is, a directory of this user's that no one else may enter.
  private static func makePrivateDirectory(_ path: String) -> Bool {
    if mkdir(path, 0o700) != 0 && errno != EEXIST { return false }
    var status = stat()
    return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR && status.st_uid == getuid()
      && status.st_mode & 0o077 == 0
  }

  /// The exit snapshots written, in the order of their processes' ids, each with how long its
  /// capture took when the agent said so.
  func exitSnapshots() throws(InputFailure) -> [(processID: Int32, snapshot: HeapSnapshot, duration: CaptureDuration?)] {
    var snapshots: [(pid: Int32, snapshot: HeapSnapshot)] = []
    for name in files.entries() {
      guard let processID = RunProtocol.processID(ofExitSnapshot: name) else { continue }
      let file = "\(files.path)/\(name)"
      let bytes = try readFile(file)
      do {
        snapshots.append((processID, try HeapSnapshot(binaryBytes: bytes)))
      } catch {
        throw InputFailure(message: "\(file): \(error.description)")
      }
    }
    return snapshots.sorted { $0.pid < $1.pid }.map { process in
      (process.pid, process.snapshot, process.snapshot.metadata.captureMilliseconds.map { CaptureDuration(seconds: Double($0) / 1000) })
    }
  }

  /// The processes the agents refused to check, with why, in the order of their ids (a file
  /// that is not a refusal is skipped).
  func refusals() -> [RunReport.Refusal] {
    files.entries().compactMap { name -> RunReport.Refusal? in
      guard let processID = RunReport.Refusal.processID(ofFile: name), let bytes = try? readFile("\(files.path)/\(name)") else {
        return nil
      }
      return RunReport.Refusal(fileBytes: bytes, processID: processID)
    }.sorted { $0.processID < $1.processID }
  }

  /// The processes the agents started checking that left no exit snapshot, in the order of their
  /// ids, each with the fault or abort that ended it when its agent saw one, and whether another
  /// checked process started it (a test that expects a crash runs the tests' binary as a child).
  func endedEarly() -> [RunReport.EndedEarly] {
    let entries = files.entries()
    let snapshotted = Set(entries.compactMap(RunProtocol.processID(ofExitSnapshot:)))
    var started: [Int32: (description: String, parentProcessID: Int32?)] = [:]
    for name in entries {
      guard let processID = RunProtocol.processID(ofStartedFile: name), let bytes = try? readFile("\(files.path)/\(name)") else {
        continue
      }
      started[processID] = RunProtocol.startedProcess(fileBytes: bytes) ?? ("process \(processID)", nil)
    }
    return started.filter { !snapshotted.contains($0.key) }.map { processID, process in
      let signal = (try? readFile("\(files.path)/\(RunProtocol.fatalSignalFileName(processID: processID))")).flatMap {
        Int32(String(decoding: $0, as: UTF8.self).split(whereSeparator: \.isNewline).first ?? "")
      }
      return RunReport.EndedEarly(
        process: process.description, processID: processID, signal: signal.map { ($0, String(cString: strsignal($0))) },
        startedByCheckedProcess: process.parentProcessID.map { started[$0] != nil } ?? false)
    }.sorted { $0.processID < $1.processID }
  }

  /// Removes the run's directory and what the agents wrote in it, and gives the slot back.
  func release() {
    files.remove()
    if let lockDescriptor {
      unlink(path)
      close(lockDescriptor)
    }
  }
}
