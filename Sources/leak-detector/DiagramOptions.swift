import ArgumentParser
import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

/// How an HTML report draws its cycles: with Graphviz's `dot` when it is installed, or with the
/// built-in layout, which needs nothing.
struct DiagramOptions: ParsableArguments {
  enum Layout: String, ExpressibleByArgument, CaseIterable {
    /// Graphviz when `dot` is on the PATH, otherwise built-in.
    case auto
    /// Always Graphviz; an error when `dot` is not installed.
    case graphviz
    /// Always the built-in layout.
    case builtIn = "built-in"
  }

  @Option(help: "How --format html draws cycles: auto (Graphviz's dot when installed), graphviz, or built-in.")
  var layout: Layout = .auto

  /// The drawing function for the HTML renderers, or `nil` for the built-in layout.
  func graphviz() throws(InputFailure) -> ((String) -> String?)? {
    let dot = Self.executable(named: "dot")
    switch layout {
    case .builtIn: return nil
    case .auto: return dot.map { path in { Self.draw($0, with: path) } }
    case .graphviz:
      guard let dot else {
        throw InputFailure(message: "dot: --layout graphviz needs Graphviz's dot on the PATH (apt-get install graphviz)")
      }
      return { Self.draw($0, with: dot) }
    }
  }

  /// Runs `dot -Tsvg` on `source` in a private directory; `nil` when it fails.
  private static func draw(_ source: String, with dot: String) -> String? {
    guard let directory = try? TemporaryDirectory(prefix: "leak-detector-dot") else { return nil }
    defer { directory.remove() }
    let input = directory.path + "/cycle.dot"
    let output = directory.path + "/cycle.svg"
    guard (try? writeFile(Array(source.utf8), to: input)) != nil else { return nil }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let arguments = [dot, "-Tsvg", input, "-o", output].map { (argument: String) in strdup(argument) } + [nil]
    defer { for argument in arguments { free(argument) } }
    var child: pid_t = 0
    guard posix_spawn(&child, dot, &actions, nil, arguments, environ) == 0 else { return nil }
    var status: Int32 = 0
    while waitpid(child, &status, 0) < 0 && errno == EINTR {}
    guard status == 0, let bytes = try? readFile(output) else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The first executable `name` on the PATH.
  private static func executable(named name: String) -> String? {
    let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
  }
}
