import Foundation
import LeakTestSupport
import XCTest

/// The run directory `leak-detector run` gives the agents: the same path, so the same
/// environment, at every run (SwiftPM keys its manifest cache on the whole environment), another
/// one while a run still holds it, always private, and emptied after the run.
final class RunDirectoryTests: XCTestCase {
  private var base = ""

  override func setUpWithError() throws {
    try super.setUpWithError()
    try RunFixturePrograms.skipUnderSanitizers()
    base = try makeTemporaryDirectory(prefix: "run-directory")
  }

  /// `run` of a shell command that prints what the agent is told, checking nothing.
  private func run(_ script: String) throws -> BuiltProgram.Run {
    try BuiltProgram("leak-detector").run(
      ["run", "--process", "nothing-like-this", "--", "/bin/sh", "-c", script], environment: ["TMPDIR": base])
  }

  private static let printEnvironment = "env | grep -E '^(LEAK_DETECTOR_|LD_PRELOAD=)' | sort"

  func testRun_twice_givesTheProgramTheSameEnvironment() throws {
    let first = try run(Self.printEnvironment)
    let second = try run(Self.printEnvironment)
    XCTAssertEqual(first.status, 1, "nothing was checked: \(first.standardError)")
    XCTAssertTrue(
      first.standardOutput.contains("LEAK_DETECTOR_RUN_DIRECTORY=\(base)/leak-detector-\(getuid())/run-0\n"), first.standardOutput)
    XCTAssertEqual(first.standardOutput, second.standardOutput)
  }

  func testRun_whileAnotherHoldsTheDirectory_takesTheNextOne_andEachRemovesItsOwn() throws {
    let held = base + "/held"
    let release = base + "/release"
    let holder = Process()
    holder.executableURL = URL(fileURLWithPath: try BuiltProgram("leak-detector").path)
    holder.arguments = [
      "run", "--process", "nothing-like-this", "--", "/bin/sh", "-c",
      "echo $LEAK_DETECTOR_RUN_DIRECTORY > \(held); touch $LEAK_DETECTOR_RUN_DIRECTORY/written; while [ ! -e \(release) ]; do sleep 0.02; done",
    ]
    holder.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": base]) { $1 }
    holder.standardError = FileHandle.nullDevice
    try holder.run()
    defer {
      _ = FileManager.default.createFile(atPath: release, contents: nil)
      holder.waitUntilExit()
    }
    eventually { FileManager.default.fileExists(atPath: held) }
    let first = try String(contentsOfFile: held, encoding: .utf8).trimmingCharacters(in: .newlines)

    let second = try run("echo $LEAK_DETECTOR_RUN_DIRECTORY; ls -A $LEAK_DETECTOR_RUN_DIRECTORY/")
    let slots = "\(base)/leak-detector-\(getuid())"
    XCTAssertEqual(first, slots + "/run-0")
    XCTAssertEqual(second.standardOutput, slots + "/run-1\n", "a new directory, empty: \(second.standardError)")
    let files = slots + "/" + (try FileManager.default.destinationOfSymbolicLink(atPath: first))
    for directory in [slots, files] {
      let attributes = try FileManager.default.attributesOfItem(atPath: directory)
      XCTAssertEqual(attributes[.posixPermissions] as? Int, 0o700, directory)
    }
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: files), ["written"], "a run's files stay while it runs")

    _ = FileManager.default.createFile(atPath: release, contents: nil)
    holder.waitUntilExit()
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: slots).sorted(), ["run-0.lock", "run-1.lock"],
      "each run removed its directory")
  }

  func testRun_whenTheSharedDirectoryIsNotPrivate_usesADirectoryOfItsOwn() throws {
    let slots = "\(base)/leak-detector-\(getuid())"
    try FileManager.default.createDirectory(atPath: slots, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
    let directory = try run("echo $LEAK_DETECTOR_RUN_DIRECTORY").standardOutput.trimmingCharacters(in: .newlines)
    XCTAssertFalse(directory.isEmpty)
    XCTAssertTrue(directory.hasPrefix(base + "/leak-detector-run."), directory)
    XCTAssertFalse(FileManager.default.fileExists(atPath: directory), "a directory of the run's own is removed")
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: slots), [], "nothing is written where others may look")
  }
}
