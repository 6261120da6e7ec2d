import HeapGraph

extension AgentRuntimeCheck {
  /// A copy of the Swift runtime linked into the executable (a program built with
  /// `--static-swift-stdlib`), as the executable's file describes it.
  ///
  /// The agent hooks such a runtime by patching its allocation entry points, which it finds in the
  /// executable's symbol table:
  ///
  ///     let own = AgentRuntimeCheck.ExecutableRuntime(hasSymbolTable: true, version: SwiftVersion(major: 6, minor: 3))
  package struct ExecutableRuntime: Sendable, Hashable {
    /// Whether the executable's file still has its symbol table (`.symtab`; `strip` removes it).
    package var hasSymbolTable: Bool
    /// The newest standard library release it declares (a minor release), when known.
    package var version: SwiftVersion?
    /// Why the agent could not hook it, once it tried and failed (`nil` before it tried, and
    /// after it succeeded).
    package var hookFailure: String?

    package init(hasSymbolTable: Bool, version: SwiftVersion?, hookFailure: String? = nil) {
      self.hasSymbolTable = hasSymbolTable
      self.version = version
      self.hookFailure = hookFailure
    }
  }
}
