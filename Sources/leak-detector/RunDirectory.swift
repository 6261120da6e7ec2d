import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

/// The private directory a `run` shares with the agents of the processes it checks: each writes
/// its exit snapshot there (``RunProtocol/exitSnapshotFileName(processID:)``), or why it refused
/// to check (``RunProtocol/Refusal``). It is emptied and given back when the run ends.
///
/// Its path is the same from one run to the next: `$TMPDIR/leak-detector-<uid>/run-0`, or
/// `run-1` to `run-15` while earlier slots are held by runs still going (a lock file beside each
/// slot says which are). The path reaches the program's environment, and SwiftPM keys its
/// manifest cache on the whole environment: a path new at every run made `swift test` compile
/// and run the package's manifest, and each dependency's, again at every run (a quarter of a
/// second for a package without dependencies). When the per-user directory is not private (not
/// a directory of this user's, with no access for others), or every slot is held, the run falls
/// back to a directory of its own.
struct RunDirectory {
  let path: String
  /// The lock on the slot, held until ``release()``; `nil` for a directory of the run's own.
  private let lockDescriptor: Int32?

  private static let slotCount = 16

  /// A slot of this user's run directory, emptied of what an earlier run left, or a new
  /// directory when none can be had.
  static func claim() throws(InputFailure) -> RunDirectory {
    if let slot = claimSlot() { return slot }
    return RunDirectory(path: try TemporaryDirectory(prefix: "leak-detector-run").path, lockDescriptor: nil)
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
      let directory = RunDirectory(path: "\(base)/run-\(slot)", lockDescriptor: lock)
      guard makePrivateDirectory(directory.path) else {
        close(lock)
        return nil
      }
      directory.empty()  // what a run that was killed left
      return directory
    }
    return nil
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

  /// Removes what the agents wrote, and gives the slot back (a directory of the run's own is
  /// removed).
  func release() {
    empty()
    if let lockDescriptor {
      close(lockDescriptor)
    } else {
      rmdir(path)
    }
  }

  private func empty() {
    for name in entries() { unlink("\(path)/\(name)") }
  }

  private func entries() -> [String] {
    TemporaryDirectory(path: path).entries()
  }
}
