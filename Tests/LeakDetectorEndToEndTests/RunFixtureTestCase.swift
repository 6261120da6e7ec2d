import LeakTestSupport
import XCTest

/// A suite of `leak-detector run` tests on fixture programs (`Fixtures/Run/NAME.swift`): its
/// ``fixtureNames`` are built once for the suite (and what ``buildExtras(in:)`` adds), a
/// sanitizer build skips its tests (the agent cannot be preloaded there), a fixture that does not
/// compile fails every test instead of skipping the suite, and the programs are removed after it.
class RunFixtureTestCase: XCTestCase {
  /// The fixture programs the suite runs.
  class var fixtureNames: [String] { [] }

  /// Builds what the fixtures need beyond their programs (a C library) into `directory`.
  class func buildExtras(in directory: String) throws {}

  nonisolated(unsafe) private static var builtBySuite: [ObjectIdentifier: Result<String, any Error>] = [:]

  /// The directory of the suite's built programs, or why it could not be built.
  static var built: Result<String, any Error> {
    builtBySuite[ObjectIdentifier(self)] ?? .failure(RunFixturePrograms.BuildFailure(description: "not built"))
  }

  /// The directory of the built programs; `setUpWithError` fails a test that has none.
  var programs: String { (try? Self.built.get()) ?? "" }

  override class func setUp() {
    super.setUp()
    guard self != RunFixtureTestCase.self else { return }
    builtBySuite[ObjectIdentifier(self)] = Result {
      let directory = try RunFixturePrograms.build(fixtureNames, directoryPrefix: String(describing: self))
      try buildExtras(in: directory)
      return directory
    }
  }

  override class func tearDown() {
    RunFixturePrograms.remove(built)
    builtBySuite[ObjectIdentifier(self)] = nil
    super.tearDown()
  }

  override func setUpWithError() throws {
    try super.setUpWithError()
    try RunFixturePrograms.skipUnderSanitizers()
    _ = try Self.built.get()
  }
}
