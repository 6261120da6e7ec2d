import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

/// `leak-detector run` on a program whose tasks wait for ever on streams that live Dispatch
/// sources feed (`Fixtures/Run/DispatchSources.swift`), as a server's signal handling does: the
/// sources' handlers hold the streams, the tasks and the storage, so nothing of it is leaked,
/// at exit or in a snapshot taken on a signal while the program runs. The program's one real
/// leak is still found.
final class DispatchSourceRootsTests: RunFixtureTestCase {
  override class var fixtureNames: [String] { ["DispatchSources"] }
  private var program: String { programs + "/DispatchSources" }

  /// The handlers of each source, named by the source, hold what the tasks wait on.
  private static let handlerRoots = [
    "Dispatch signal source (SIGUSR2) event handler", "Dispatch signal source (SIGHUP) event handler",
    "Dispatch signal source (SIGUSR2) cancel handler", "Dispatch timer source event handler",
  ]

  func testRun_tasksWaitingOnSourcesStreams_atExit_areHeldByTheHandlers_andOnlyTheRealLeakIsReported() throws {
    let directory = try temporaryDirectory()
    let result = try BuiltProgram("leak-detector").run(["run", "--snapshot", directory + "/exit.json", "--", program])
    let report = result.standardOutput
    XCTAssertEqual(result.status, 2, report + result.standardError)
    XCTAssertTrue(report.contains("Leaks: 1 object in 1 group\n"), report)
    XCTAssertTrue(report.contains("1 × Forgotten.me → Forgotten"), report)
    try assertHandlerRoots(inSnapshotAt: directory + "/exit.json")
  }

  func testRun_snapshotSignalWhileTheTasksWait_analyzesToTheRealLeakOnly() throws {
    let directory = try temporaryDirectory()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try BuiltProgram("leak-detector").path)
    process.arguments = ["run", "--snapshot-signal", "USR1", "--snapshot-directory", directory, "--", program, directory]
    try RunFixturePrograms.makeStopPipe(in: directory)
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    defer { if process.isRunning { process.terminate() } }
    XCTAssertTrue(eventually { FileManager.default.fileExists(atPath: directory + "/ready") }, "the program did not start")
    kill(process.processIdentifier, SIGUSR1)
    var written: String?
    XCTAssertTrue(
      eventually {
        written = (try? FileManager.default.contentsOfDirectory(atPath: directory))?.first { $0.hasSuffix(".heapsnapshot.json") }
        return written != nil
      }, "no snapshot was written on the signal")
    XCTAssertTrue(RunFixturePrograms.stop(in: directory), "the program was not waiting to be stopped")
    process.waitUntilExit()
    let path = directory + "/" + (try XCTUnwrap(written))
    let analysis = try BuiltProgram("leak-detector").run(["analyze", path])
    XCTAssertTrue(analysis.standardOutput.contains("Leaks: 1 object unreachable from every root, in 1 group"), analysis.standardOutput)
    try assertHandlerRoots(inSnapshotAt: path)
  }

  // MARK: - Helpers

  /// Checks that the snapshot at `path` has a runtime root for each handler, and one for the
  /// read source's named by its descriptor.
  private func assertHandlerRoots(inSnapshotAt path: String, file: StaticString = #filePath, line: UInt = #line) throws {
    let snapshot = try HeapSnapshot(jsonBytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    let labels = Set(snapshot.roots.filter { $0.kind == .runtime }.compactMap(\.label))
    XCTAssertTrue(labels.isSuperset(of: Self.handlerRoots), "\(labels.sorted())", file: file, line: line)
    XCTAssertTrue(
      labels.contains { $0.wholeMatch(of: /Dispatch read source \(fd [0-9]+\) event handler/) != nil }, "\(labels.sorted())",
      file: file, line: line)
  }

  private func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("dispatch-sources-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
  }
}
