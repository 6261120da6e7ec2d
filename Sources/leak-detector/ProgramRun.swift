#if canImport(Glibc)
  import Glibc
#endif

/// The program `leak-detector run` checks, started with the agent preloaded: its standard
/// streams are this process's, its environment this one's plus `environment`. While it runs, it is
/// in this process's group, so what a terminal sends the foreground group (Ctrl-C's `SIGINT`,
/// Ctrl-\'s `SIGQUIT`) reaches it directly; the same signals sent to this process alone (a `kill`
/// of its pid) are passed on to it, as are termination requests and the snapshot signal. The
/// command outlives the program either way, and reports.
struct ProgramRun {
  /// How the program ended.
  enum Ending: Equatable {
    case exited(Int32)
    case killed(signal: Int32, coreDumped: Bool)
  }

  /// Starts `arguments[0]` (looked up in `PATH`), waits for it and returns how it ended.
  static func run(_ arguments: [String], environment: [String: String], forwarding signals: [Int32]) throws(InputFailure) -> Ending {
    var merged: [String: String] = [:]
    var cursor = environ
    var pairs: [String] = []
    while let pair = cursor.pointee {
      pairs.append(String(cString: pair))
      cursor += 1
    }
    for pair in pairs {
      guard let equals = pair.firstIndex(of: "=") else { continue }
      merged[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
    }
    merged.merge(environment) { _, new in new }
    let environmentLines = merged.map { "\($0.key)=\($0.value)" }

    ForwardedSignals.start(signals)
    defer { ForwardedSignals.stop(signals) }

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in signals { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))

    var child: pid_t = 0
    let status = withCStrings(arguments) { argv in
      withCStrings(environmentLines) { envp in posix_spawnp(&child, argv[0]!, nil, &attributes, argv, envp) }
    }
    guard status == 0 else {
      throw InputFailure(message: "\(arguments[0]): cannot start it: \(String(cString: strerror(status)))")
    }
    ForwardedSignals.child = child
    var waited: Int32 = 0
    while waitpid(child, &waited, 0) < 0 && errno == EINTR {}
    let signal = waited & 0x7f
    return signal == 0 ? .exited((waited >> 8) & 0xff) : .killed(signal: signal, coreDumped: waited & 0x80 != 0)
  }

  /// Calls `body` with a NULL-terminated array of C strings.
  private static func withCStrings<Result>(
    _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result
  ) -> Result {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
  }
}
