import HeapGraph

extension AgentRuntimeCheck {
  /// One `libswiftCore.so`: where it is, which build, which release.
  package struct Runtime: Sendable, Hashable {
    /// Its path, as the dynamic loader opened it or the run path names it.
    package var path: String
    /// Its build id, when it has one.
    package var buildID: BuildID?
    /// The newest standard library release it knows (a minor release), when known.
    package var version: SwiftVersion?

    package init(path: String, buildID: BuildID?, version: SwiftVersion?) {
      self.path = path
      self.buildID = buildID
      self.version = version
    }

    /// `Swift 6.2`, or what is known when the runtime names no release.
    var versionText: String {
      version.map { "Swift \($0)" } ?? "a release older than Swift 5.6, or unknown"
    }

    /// The build id, or `unknown`.
    var buildIDText: String {
      buildID?.description ?? "unknown"
    }

    /// `Swift 6.2 at /opt/swift-6.2`: the release, when known, and the toolchain's directory (the
    /// one that holds `usr/lib/swift/linux/libswiftCore.so`), or else the runtime's own directory.
    var toolchainDescription: String {
      let layout = "/usr/lib/swift/linux/libswiftCore.so"
      let directory: String
      if path.hasSuffix(layout) {
        let root = String(path.dropLast(layout.count))
        directory = root.isEmpty ? "/" : root
      } else {
        directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
      }
      return (version.map { "Swift \($0) " } ?? "") + "at \(directory)"
    }
  }
}
