import CLeakAgent
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
      executableHasSwiftCode: facts.executableHasSwiftSections, loadedRuntime: loaded, agentRuntime: agents)
  }

  /// The first `length` bytes of a build id the C side read, or `nil` when it read none.
  private static func buildID<Bytes>(_ bytes: Bytes, length: Int) -> BuildID? {
    guard length > 0 else { return nil }
    return withUnsafeBytes(of: bytes) { BuildID(Array($0.prefix(length))) }
  }
}
