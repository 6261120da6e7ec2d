import HeapGraph

/// A Swift release's version: `6.3.1` for a compiler, `6.3` for a runtime (which names its
/// minor releases only).
///
/// ``compiler`` is the version of the compiler this module was compiled with: the agent of
/// `leak-detector run` compares it with the runtime a program loads, and `leak-detector
/// --version` says it.
package struct SwiftVersion: Sendable, Hashable, CustomStringConvertible {
  package var major: Int
  package var minor: Int
  /// The patch release, when known (a runtime names none).
  package var patch: Int?
  /// Whether this is a lower bound: a compiler newer than the releases ``compiler`` names.
  package var orLater: Bool

  package init(major: Int, minor: Int, patch: Int? = nil, orLater: Bool = false) {
    self.major = major
    self.minor = minor
    self.patch = patch
    self.orLater = orLater
  }

  /// `6.3.1`, `6.3` (a patch release 0 as the release calls itself), `6.5 or later`.
  package var description: String {
    "\(major).\(minor)" + (patch.flatMap { $0 == 0 ? nil : ".\($0)" } ?? "") + (orLater ? " or later" : "")
  }

  /// Whether `other` is the same minor release (`6.3.1` and `6.3`).
  package func isSameMinorRelease(as other: SwiftVersion) -> Bool {
    major == other.major && minor == other.minor
  }

  /// The compiler this module was compiled with: to the patch release for the patch releases
  /// this list names, to the minor release for a later patch of a minor release it names, and
  /// a lower bound for a later minor release.
  package static let compiler: SwiftVersion = {
    #if compiler(>=6.5)
      return SwiftVersion(major: 6, minor: 5, orLater: true)
    #elseif compiler(>=6.4)
      return SwiftVersion(major: 6, minor: 4)
    #elseif compiler(>=6.3.2)
      return SwiftVersion(major: 6, minor: 3)
    #elseif compiler(>=6.3.1)
      return SwiftVersion(major: 6, minor: 3, patch: 1)
    #elseif compiler(>=6.3)
      return SwiftVersion(major: 6, minor: 3, patch: 0)
    #elseif compiler(>=6.2.4)
      return SwiftVersion(major: 6, minor: 2)
    #elseif compiler(>=6.2.3)
      return SwiftVersion(major: 6, minor: 2, patch: 3)
    #elseif compiler(>=6.2.2)
      return SwiftVersion(major: 6, minor: 2, patch: 2)
    #elseif compiler(>=6.2.1)
      return SwiftVersion(major: 6, minor: 2, patch: 1)
    #elseif compiler(>=6.2)
      return SwiftVersion(major: 6, minor: 2, patch: 0)
    #elseif compiler(>=6.1.4)
      return SwiftVersion(major: 6, minor: 1)
    #elseif compiler(>=6.1.3)
      return SwiftVersion(major: 6, minor: 1, patch: 3)
    #elseif compiler(>=6.1.2)
      return SwiftVersion(major: 6, minor: 1, patch: 2)
    #elseif compiler(>=6.1.1)
      return SwiftVersion(major: 6, minor: 1, patch: 1)
    #elseif compiler(>=6.1)
      return SwiftVersion(major: 6, minor: 1, patch: 0)
    #elseif compiler(>=6.0.4)
      return SwiftVersion(major: 6, minor: 0)
    #elseif compiler(>=6.0.3)
      return SwiftVersion(major: 6, minor: 0, patch: 3)
    #elseif compiler(>=6.0.2)
      return SwiftVersion(major: 6, minor: 0, patch: 2)
    #elseif compiler(>=6.0.1)
      return SwiftVersion(major: 6, minor: 0, patch: 1)
    #else
      return SwiftVersion(major: 6, minor: 0, patch: 0)
    #endif
  }()
}
