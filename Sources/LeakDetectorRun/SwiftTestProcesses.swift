#if canImport(Glibc)
  import Glibc
#endif

/// How `swift test` runs a package's tests, as far as `leak-detector run` and its agent need to
/// know it: which processes run tests (they are the ones checked when `--process` is not given,
/// and their reports name tests), and which of them only list the tests.
///
/// ```text
/// swift test                                            swift-build, swiftc… (not checked)
///   └─ PetsPackageTests.xctest --dump-tests-json        lists the tests (not checked)
///   └─ PetsPackageTests.xctest                          XCTest's tests (checked)
///   └─ PetsPackageTests.xctest --testing-library swift-testing   Swift Testing's (checked)
/// ```
package enum SwiftTestProcesses {
  /// The executables that run the tests of `swift test`, as shell patterns: XCTest's bundle
  /// (which runs Swift Testing's tests too when told `--testing-library swift-testing`) and
  /// Swift Testing's helper.
  package static let runnerPatterns = ["*.xctest", "swiftpm-testing-helper"]

  /// Whether `command` is `swift test …`.
  package static func isSwiftTest(_ command: [String]) -> Bool {
    guard let first = command.first else { return false }
    return first.split(separator: "/").last == "swift" && command.dropFirst().first == "test"
  }

  /// Whether the executable `program` (a file name) runs tests.
  package static func isRunner(_ program: String) -> Bool {
    runnerPatterns.contains { fnmatch($0, program, 0) == 0 }
  }

  /// Whether a test runner started with `arguments` only lists its tests: SwiftPM runs the
  /// bundle once for that (for `--filter` and `--parallel`), and nothing of a test runs there.
  package static func onlyListsTests(_ arguments: [String]) -> Bool {
    arguments.contains("--dump-tests-json") || arguments.contains("--list-tests")
  }
}
