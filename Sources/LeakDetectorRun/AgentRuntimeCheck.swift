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
/// - run on the shared Swift runtime: its executable needs `libswiftCore.so`. A program built with
///   `--static-swift-stdlib` has its own copy of the runtime inside, whose allocations the
///   agent's interposers never see;
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
  /// The runtime the process runs on, when one is loaded.
  package var loadedRuntime: Runtime?
  /// The runtime the agent was linked against, when its run path has one.
  package var agentRuntime: Runtime?
  /// The compiler the agent was compiled with.
  package var agentCompiler: SwiftVersion

  package init(
    program: String, executableNeedsSharedRuntime: Bool, executableHasSwiftCode: Bool, loadedRuntime: Runtime?,
    agentRuntime: Runtime?, agentCompiler: SwiftVersion = .compiler
  ) {
    self.program = program
    self.executableNeedsSharedRuntime = executableNeedsSharedRuntime
    self.executableHasSwiftCode = executableHasSwiftCode
    self.loadedRuntime = loadedRuntime
    self.agentRuntime = agentRuntime
    self.agentCompiler = agentCompiler
  }

  /// Why the agent does not check the process, in words for the person who ran it, or `nil`
  /// when it understands the process's runtime.
  package var refusalReason: String? {
    guard executableNeedsSharedRuntime else {
      if executableHasSwiftCode {
        return "it has its own copy of the Swift runtime linked in (built with --static-swift-stdlib), "
          + "whose allocations the agent cannot see; build it without --static-swift-stdlib to check it"
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
}
