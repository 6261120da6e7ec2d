import HeapGraph
import ProcessImage

#if canImport(Glibc)
  import Glibc
#endif

/// The snapshot of the core file at `path`, taken by `leak-detector capture` in a process of its
/// own: a process reads one memory image for its life (its reflection and symbol caches are the
/// image's), and a command may read two cores (`diff`). Its error, if it fails, is this one's.
func snapshotOfCoreFile(_ path: String, binaryDirectories: [String], progress: ProgressPrinter?) throws -> HeapSnapshot {
  progress?.report("finding the live objects of core file \(path)")
  let directory = try TemporaryDirectory(prefix: "leak-detector-core")
  defer { directory.remove() }
  let output = "\(directory.path)/core.heapsnapshot"
  let errors = "\(directory.path)/errors.txt"
  var arguments = [executablePath(), "capture", path, "--output", output]
  for binaries in binaryDirectories { arguments += ["--binaries", binaries] }
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  var child: pid_t = 0
  let pointers = arguments.map { strdup($0) } + [nil]
  defer { pointers.forEach { free($0) } }
  let status = posix_spawn(&child, pointers[0]!, &actions, nil, pointers, environ)
  guard status == 0 else { throw InputFailure(message: "\(path): cannot read the core file: \(String(cString: strerror(status)))") }
  var waited: Int32 = 0
  while waitpid(child, &waited, 0) < 0 && errno == EINTR {}
  guard waited == 0 else {
    let text = (try? readFile(errors)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    let message = text.split(separator: "\n").last { $0.hasPrefix("leak-detector: error: ") }.map { String($0.dropFirst(22)) }
    throw InputFailure(message: message ?? "\(path): the core file could not be read (status \(waited))")
  }
  return try loadSnapshotFile(output, shownAs: path).snapshot
}

/// This program's own file, to start it again.
private func executablePath() -> String {
  var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
  let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
  return length > 0 ? String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
}
