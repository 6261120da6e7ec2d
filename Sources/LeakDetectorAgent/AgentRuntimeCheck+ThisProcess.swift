import CLeakAgent
import CLeakRuntime
import HeapGraph
import LeakDetectorRun

#if canImport(Glibc)
  import Glibc
#endif

extension AgentRuntimeCheck {
  /// The check of this process, the executable `program`: what its images say about the Swift
  /// runtime it runs on and the one this agent was linked against.
  static func ofThisProcess(program: String) -> AgentRuntimeCheck {
    var facts = cleak_agent_swift_runtime_facts()
    cleak_agent_read_swift_runtime_facts(&facts)
    defer { cleak_agent_free_swift_runtime_facts(&facts) }
    let loadedVersion =
      facts.loadedRuntimeMajorVersion > 0
      ? SwiftVersion(major: Int(facts.loadedRuntimeMajorVersion), minor: Int(facts.loadedRuntimeMinorVersion)) : nil
    let loaded = facts.loadedRuntimePath.map { path in
      Runtime(
        path: String(cString: path), buildID: buildID(facts.loadedRuntimeBuildID, length: facts.loadedRuntimeBuildIDLength),
        version: loadedVersion)
    }
    let agents = facts.agentRuntimePath.map { path in
      Runtime(
        path: String(cString: path), buildID: buildID(facts.agentRuntimeBuildID, length: facts.agentRuntimeBuildIDLength),
        version: nil)
    }
    return AgentRuntimeCheck(
      program: program, executableNeedsSharedRuntime: facts.executableNeedsSharedRuntime,
      executableHasSwiftCode: facts.executableHasSwiftSections,
      executableRuntime: facts.executableNeedsSharedRuntime || !facts.executableHasSwiftSections ? nil : executableRuntime(),
      loadedRuntime: loaded, agentRuntime: agents)
  }

  /// The runtime linked into this process's executable, as its symbol table describes it, or
  /// `nil` when the table defines none.
  private static func executableRuntime() -> ExecutableRuntime? {
    var facts = cleak_executable_runtime_facts()
    cleak_executable_runtime_read_facts(&facts)
    guard facts.hasOwnRuntime || !facts.hasSymbolTable else { return nil }
    let version =
      facts.standardLibraryMajorVersion > 0
      ? SwiftVersion(major: Int(facts.standardLibraryMajorVersion), minor: Int(facts.standardLibraryMinorVersion)) : nil
    return ExecutableRuntime(hasSymbolTable: facts.hasSymbolTable, version: version)
  }

  /// Hooks the runtime linked into the executable, when there is one and the check found nothing
  /// against it, and notes why when that fails: the check then refuses the process.
  mutating func hookingExecutableRuntime() {
    guard executableRuntime != nil, refusalReason == nil else { return }
    var failure = [CChar](repeating: 0, count: 512)
    if !cleak_executable_runtime_hook(&failure, failure.count) {
      executableRuntime?.hookFailure = String(decoding: failure.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
  }

  /// The first `length` bytes of a build id the C side read, or `nil` when it read none.
  private static func buildID<Bytes>(_ bytes: Bytes, length: Int) -> BuildID? {
    guard length > 0 else { return nil }
    return withUnsafeBytes(of: bytes) { BuildID(Array($0.prefix(length))) }
  }
}
