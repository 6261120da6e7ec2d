#if canImport(Glibc)
  import Glibc
#endif

/// A private directory of the command's own (for Graphviz's files, or a run's when its usual
/// one cannot be had), removed afterwards.
struct TemporaryDirectory {
  let path: String

  /// `$TMPDIR`, or `/tmp`.
  static var base: String { getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp" }

  /// A new directory, `<prefix>.XXXXXX` in `directory` (by default ``base``), that only this
  /// user may enter.
  init(prefix: String, in directory: String = Self.base) throws(InputFailure) {
    var template = Array("\(directory)/\(prefix).XXXXXX".utf8CString)
    guard mkdtemp(&template) != nil else {
      throw InputFailure(message: "\(directory): cannot create a temporary directory: \(String(cString: strerror(errno)))")
    }
    path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  init(path: String) {
    self.path = path
  }

  /// Removes the directory and the files in it.
  func remove() {
    for name in entries() { unlink("\(path)/\(name)") }
    rmdir(path)
  }

  /// The names of the directory's entries.
  func entries() -> [String] {
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
