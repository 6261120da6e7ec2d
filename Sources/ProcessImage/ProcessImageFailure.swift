/// Why a process or a core file could not be read, in plain words: what failed and, where there
/// is one, what to do about it.
///
/// ```swift
/// do { _ = try ProcessImage.capture(processID: 1) } catch { print(error) }
/// ```
/// ```text
/// cannot trace process 1: permission denied (it runs as another user, or the kernel's ptrace policy forbids it: ...)
/// ```
public struct ProcessImageFailure: Error, CustomStringConvertible, Sendable, Equatable {
  /// What kind of failure it is, for a caller that acts on it (an exit code).
  public enum Kind: Sendable, Equatable {
    /// No process has that id.
    case noSuchProcess
    /// The process may not be traced by this one.
    case permissionDenied
    /// Another tracer (a debugger) holds the process.
    case alreadyTraced
    /// The capture could not stop the process, or refused to copy it.
    case captureFailed
    /// The file could not be opened or read.
    case unreadableFile
    /// The file is not an ELF core file of this machine's kind.
    case notACoreFile
    /// The core file is cut short or its offsets point past its end.
    case truncated
  }

  public let kind: Kind
  /// The plain message.
  public let description: String

  public init(_ kind: Kind, _ description: String) {
    self.kind = kind
    self.description = description
  }

  /// The failure to trace `processID` for lack of permission, with what to grant, and what
  /// Yama's `ptrace_scope` (the file's value, `nil` when the file does not exist) adds.
  ///
  /// ```swift
  /// print(ProcessImageFailure.permissionDenied(processID: 1234, yamaPtraceScope: nil))
  /// ```
  /// ```text
  /// cannot trace process 1234: permission denied (it runs as another user, or the kernel's ptrace policy forbids it: ...)
  /// ```
  public static func permissionDenied(processID: Int32, yamaPtraceScope: Int?) -> ProcessImageFailure {
    var text =
      "cannot trace process \(processID): permission denied (it runs as another user, or the kernel's ptrace policy forbids it: "
      + "run as the same user or root with CAP_SYS_PTRACE; in a container, start it with --cap-add SYS_PTRACE"
    switch yamaPtraceScope {
    case nil: break
    case 0: text += "; /proc/sys/kernel/yama/ptrace_scope is 0: any process of the same user may be traced"
    case 1:
      text +=
        "; /proc/sys/kernel/yama/ptrace_scope is 1: only a parent may trace its descendants without CAP_SYS_PTRACE, "
        + "unless the target allows it with prctl(PR_SET_PTRACER); or set it to 0"
    case 2: text += "; /proc/sys/kernel/yama/ptrace_scope is 2: only a process with CAP_SYS_PTRACE may trace"
    case 3: text += "; /proc/sys/kernel/yama/ptrace_scope is 3: no process may trace, not even root, until the next boot"
    case let scope?: text += "; /proc/sys/kernel/yama/ptrace_scope is \(scope)"
    }
    return ProcessImageFailure(.permissionDenied, text + ")")
  }

  /// The failure to trace a process that `tracerID` (a debugger, `strace`) traces already.
  public static func alreadyTraced(processID: Int32, threadID: Int32, tracerID: Int32, tracerName: String?) -> ProcessImageFailure {
    let tracer = tracerName.map { "process \(tracerID) (\($0))" } ?? "process \(tracerID)"
    let thread = threadID == processID ? "" : " (its thread \(threadID))"
    return ProcessImageFailure(
      .alreadyTraced, "cannot trace process \(processID)\(thread): \(tracer) traces it already (a debugger?); detach it first")
  }

  /// No process `processID`.
  public static func noSuchProcess(_ processID: Int32) -> ProcessImageFailure {
    ProcessImageFailure(.noSuchProcess, "no process \(processID)")
  }

  /// A core file `path` that is wrong in the way `problem` says.
  static func badCore(_ path: String, _ kind: Kind, _ problem: String) -> ProcessImageFailure {
    ProcessImageFailure(kind, "\(path): \(problem)")
  }
}
