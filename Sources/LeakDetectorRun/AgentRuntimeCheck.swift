import HeapGraph

/// Whether the agent of `leak-detector run` understands the Swift runtime of a process it was
/// asked to check, from what the process's images say (the agent reads them; this decides and
/// words the answer).
///
/// The agent reads the runtime's objects, metadata and tasks with the layouts of the one runtime
/// it was compiled and tested with. On another runtime it would misread them without noticing,
/// so it refuses such a process (``refusalReason``) and tracks nothing there. A process it
/// checks must:
///
/// - run on the shared Swift runtime, or on a copy of it linked into the executable (built with
///   `--static-swift-stdlib`, ``ExecutableRuntime``) that the agent can hook: one of the same minor
///   release, whose executable keeps its symbol table;
/// - run on the minor release of the runtime the agent was compiled with (unless the compiler is
///   newer than ``SwiftVersion/compiler`` can name);
/// - run on the same build of `libswiftCore.so` as the one in the agent's run path, when that is
///   found. The dynamic loader loads the libraries the executable needs before the preloaded
///   agent's own, so a program built by another toolchain brings its own runtime, and the agent
///   runs on it.
package struct AgentRuntimeCheck: Sendable, Hashable {
  /// The executable's file name.
  package var program: String
  /// Whether the executable needs the shared runtime, `libswiftCore.so`.
  package var executableNeedsSharedRuntime: Bool
  /// Whether the executable has Swift code of its own (Swift metadata sections).
  package var executableHasSwiftCode: Bool
  /// The runtime linked into the executable, when it does not need the shared one and has one
  /// of its own (or is stripped of the symbols that would tell).
  package var executableRuntime: ExecutableRuntime?
  /// The runtime the process runs on, when one is loaded.
  package var loadedRuntime: Runtime?
  /// The runtime the agent was linked against, when its run path has one.
  package var agentRuntime: Runtime?
  /// The compiler the agent was compiled with.
  package var agentCompiler: SwiftVersion

  package init(
    program: String, executableNeedsSharedRuntime: Bool, executableHasSwiftCode: Bool,
    executableRuntime: ExecutableRuntime? = nil, loadedRuntime: Runtime?, agentRuntime: Runtime?,
    agentCompiler: SwiftVersion = .compiler
  ) {
    self.program = program
    self.executableNeedsSharedRuntime = executableNeedsSharedRuntime
    self.executableHasSwiftCode = executableHasSwiftCode
    self.executableRuntime = executableRuntime
    self.loadedRuntime = loadedRuntime
    self.agentRuntime = agentRuntime
    self.agentCompiler = agentCompiler
  }

  /// Why the agent does not check the process, in words for the person who ran it, or `nil`
  /// when it understands the process's runtime.
  package var refusalReason: String? {
    guard executableNeedsSharedRuntime else {
      if executableHasSwiftCode, let own = executableRuntime {
        return ownRuntimeRefusalReason(own)
      }
      if executableHasSwiftCode {
        return "it has Swift code but neither needs the shared Swift runtime, libswiftCore.so, nor has a copy of it linked in "
          + "(its symbol table defines no swift_allocObject); name the Swift processes to check with --process"
      }
      return "it is not a Swift program (its executable neither needs the Swift runtime, libswiftCore.so, "
        + "nor has Swift code); name the Swift processes to check with --process"
    }
    guard let loaded = loadedRuntime else {
      return "the Swift runtime it runs on cannot be found (no loaded library defines swift_retain)"
    }
    let advice = "build leak-detector with the toolchain that built \(program) (\(loaded.toolchainDescription))"
    let runsOn = "it runs on the Swift runtime \(loaded.path) (\(loaded.versionText), build \(loaded.buildIDText))"
    if !agentCompiler.orLater, loaded.version.map({ !$0.isSameMinorRelease(as: agentCompiler) }) ?? true {
      let agentRuntimeText = agentRuntime.map { ", \($0.path) (build \($0.buildIDText))" } ?? ""
      return "\(runsOn), and this agent was built with Swift \(agentCompiler) for its runtime only\(agentRuntimeText); \(advice)"
    }
    if let agentRuntime, let loadedBuild = loaded.buildID, let agentBuild = agentRuntime.buildID, loadedBuild != agentBuild {
      return "\(runsOn), another build than the one this agent was built with, \(agentRuntime.path) "
        + "(Swift \(agentCompiler), build \(agentBuild)); \(advice)"
    }
    return nil
  }

  /// Why the agent does not check a program that runs on its own copy of the runtime, `own`, or
  /// `nil` when it does.
  private func ownRuntimeRefusalReason(_ own: ExecutableRuntime) -> String? {
    let linkedIn = "it has its own copy of the Swift runtime linked in (built with --static-swift-stdlib)"
    guard own.hasSymbolTable else {
      return "\(linkedIn) and its symbol table was stripped: the agent finds that runtime's allocation functions by their symbols; "
        + "check a build that keeps them (strip it after the check)"
    }
    if !agentCompiler.orLater, own.version.map({ !$0.isSameMinorRelease(as: agentCompiler) }) ?? true {
      let release = own.version.map { "Swift \($0)" } ?? "a release older than Swift 5.6, or unknown"
      return "\(linkedIn), from \(release), and this agent was built with Swift \(agentCompiler) for its runtime only; "
        + "build leak-detector with the toolchain that built \(program)"
    }
    if let failure = own.hookFailure {
      return "\(linkedIn), which the agent cannot hook: \(failure)"
    }
    return nil
  }
}
