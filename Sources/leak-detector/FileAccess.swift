import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

// Every file the commands read or write goes through here, so that each problem becomes one
// input failure (exit status 1) that names the file, and so that `-` means standard input
// wherever a snapshot is read.

/// The argument that names standard input where a command reads a snapshot.
let standardInputArgument = "-"

/// How messages name the input that `path` names on the command line.
func inputName(_ path: String) -> String {
  path == standardInputArgument ? "standard input" : path
}

/// Reads the whole input that `path` names: a file or, for `-`, standard input.
func readInput(_ path: String) throws(InputFailure) -> [UInt8] {
  guard path == standardInputArgument else { return try readFile(path) }
  if isatty(STDIN_FILENO) == 1 {
    standardError.write("leak-detector: reading a snapshot from standard input (the terminal); end it with Ctrl-D\n")
  }
  do {
    return try FileBytes.readStandardInput(named: inputName(path))
  } catch {
    throw InputFailure(message: error.description)
  }
}

/// The file at `path` opened to be read in pieces, or `nil` for standard input (`-`), an empty
/// path and anything that is not a regular file, which ``readInput(_:)`` reads whole or refuses.
func openRegularFile(_ path: String) throws(InputFailure) -> FileInput? {
  guard path != standardInputArgument, !path.isEmpty else { return nil }
  do {
    return try FileInput(regularFileAt: path)
  } catch {
    throw InputFailure(message: error.description)
  }
}

/// The first `count` bytes of `input`, which its later reads return again.
func peek(_ count: Int, of input: FileInput) throws(InputFailure) -> [UInt8] {
  do {
    return try input.peek(count)
  } catch {
    throw InputFailure(message: error.description)
  }
}

/// Reads the whole file at `path` (`-` is a file name here).
func readFile(_ path: String) throws(InputFailure) -> [UInt8] {
  do {
    return try FileBytes.read(path)
  } catch {
    throw InputFailure(message: error.description)
  }
}

/// Writes `bytes` to the file at `path` atomically; when that fails, the old file is as it was.
func writeFile(_ bytes: [UInt8], to path: String) throws(InputFailure) {
  do {
    try FileBytes.writeAtomically(bytes, to: path)
  } catch {
    throw InputFailure(message: error.description)
  }
}

/// Writes `text` as UTF-8 to the file at `path` atomically, as the byte-array version does.
func writeFile(_ text: String, to path: String) throws(InputFailure) {
  do {
    try FileBytes.writeAtomically(text, to: path)
  } catch {
    throw InputFailure(message: error.description)
  }
}

/// Creates the directories missing on the way to the file at `path` (as `mkdir -p` does for its
/// parent), so that a first baseline can go into a new `Baselines/`; a directory made here is
/// its owner's only (0700), as the files written into it are.
func createParentDirectories(of path: String) throws(InputFailure) {
  var parent = path.hasPrefix("/") ? "/" : ""
  for component in path.split(separator: "/").dropLast() {
    parent += component
    if component != "." && component != ".." && mkdir(parent, 0o700) != 0 && errno != EEXIST {
      throw InputFailure(message: "\(path): cannot create the directory \(parent): \(String(cString: strerror(errno)))")
    }
    parent += "/"
  }
}

/// Whether `first` and `second` name the same existing file (through links, `.` or `..`).
func isSameFile(_ first: String, _ second: String) -> Bool {
  var firstStatus = stat()
  var secondStatus = stat()
  guard stat(first, &firstStatus) == 0, stat(second, &secondStatus) == 0 else { return false }
  return firstStatus.st_dev == secondStatus.st_dev && firstStatus.st_ino == secondStatus.st_ino
}

/// Fails unless `directory` is a directory this process may create files in; `path` (what the
/// command line gave `option`) names it in the message. A command that runs a program checks
/// this first, so that a typo fails at once and not after the program ran.
func checkWritableDirectory(_ directory: String, of path: String, for option: String) throws(InputFailure) {
  var status = stat()
  guard stat(directory, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
    throw InputFailure(message: "\(path): \(option): there is no directory \(directory); nothing was run")
  }
  guard access(directory, W_OK | X_OK) == 0 else {
    throw InputFailure(message: "\(path): \(option): the directory \(directory) is not writable; nothing was run")
  }
}

/// ``checkWritableDirectory(_:of:for:)`` for the directory the file at `path` would go to.
func checkWritableParent(of path: String, for option: String) throws(InputFailure) {
  guard let slash = path.lastIndex(of: "/") else { return try checkWritableDirectory(".", of: path, for: option) }
  try checkWritableDirectory(slash == path.startIndex ? "/" : String(path[..<slash]), of: path, for: option)
}
