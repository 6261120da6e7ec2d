import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

/// `leak-detector run` on a program whose live thread keeps retained objects in its
/// pthread-specific values (`Fixtures/Run/ThreadSpecific.swift`): glibc clears them in a forked
/// capture child, so they are read before the fork and are roots named by thread and key. And
/// on one whose thread keeps a cycle in a `__thread` variable of a library loaded with `dlopen`
/// (`Fixtures/Run/DynamicTLS.swift`): dynamic TLS is a root too.
final class ThreadSpecificRootsTests: RunFixtureTestCase {
  override class var fixtureNames: [String] { ["ThreadSpecific", "DynamicTLS"] }

  override class func buildExtras(in directory: String) throws {
    let library = try BuiltProgram.tool("clang").run(
      ["-shared", "-fPIC", RunFixturePrograms.sources + "/DynamicTLS.c", "-o", directory + "/libDynamicTLS.so"])
    guard library.status == 0 else {
      throw RunFixturePrograms.BuildFailure(description: "DynamicTLS.c did not compile:\n\(library.standardError)")
    }
  }

  func testRun_valueOfOneOfTheFirstKeys_isARootNamedByThreadAndKey() throws {
    try assertKept("KeptByFewKeys", variant: "few")
  }

  func testRun_valueOfAKeyPast32_inASecondLevelBlock_isARootNamedByThreadAndKey() throws {
    try assertKept("KeptByKeyPast32", variant: "many")
  }

  func testRun_eventLoopThreadSpecificVariable_boxAndValueAreKeptByTheLoopThread() throws {
    try assertKept("Box<(Swift.AnyObject, Swift.AnyObject)>", variant: "loop")
  }

  func testRun_mainThreadsValue_whileAnotherThreadExits_isARootNamedByTheMainThreadAndKey() throws {
    try assertKept("KeptByMainThread", variant: "main", thread: "main thread")
  }

  func testRun_cycleOnlyAnotherThreadsDynamicTLSReaches_isARootNamedByThreadAndImage() throws {
    let directory = try temporaryDirectory()
    let programs = try Self.built.get()
    let result = try BuiltProgram("leak-detector").run(
      ["run", "--snapshot", directory + "/kept.json", "--", programs + "/DynamicTLS", programs + "/libDynamicTLS.so"])
    XCTAssertEqual(result.status, 0, result.standardOutput + result.standardError)
    XCTAssertTrue(result.standardOutput.contains("\nLeaks: none\n"), result.standardOutput)
    let labels = try rootLabels(ofType: "DynamicTLS.HeldByDynamicTLS", inSnapshotAt: directory + "/kept.json")
    XCTAssertTrue(labels.contains { $0.wholeMatch(of: /thread [0-9]+ dynamic TLS of libDynamicTLS\.so/) != nil }, "\(labels)")
  }

  // MARK: - Helpers

  /// Runs the fixture's `variant` and checks that nothing leaked, no retain was called
  /// unbalanced, and the object of type `typeName` is a root `thread TID pthread key N` (or
  /// `main thread pthread key N`, with `thread` "main thread").
  private func assertKept(
    _ typeName: String, variant: String, thread: String = "thread [0-9]+", file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let directory = try temporaryDirectory()
    let program = try Self.built.get() + "/ThreadSpecific"
    let result = try BuiltProgram("leak-detector").run(["run", "--snapshot", directory + "/kept.json", "--", program, variant])
    let report = result.standardOutput
    XCTAssertEqual(result.status, 0, report + result.standardError, file: file, line: line)
    XCTAssertTrue(report.contains("\nLeaks: none\n"), report, file: file, line: line)
    XCTAssertFalse(report.contains("unbalanced"), report, file: file, line: line)

    let labels = try rootLabels(ofType: "ThreadSpecific." + typeName, inSnapshotAt: directory + "/kept.json")
    let label = try Regex(thread + " pthread key [0-9]+")
    XCTAssertTrue(labels.contains { $0.wholeMatch(of: label) != nil }, "\(labels)", file: file, line: line)
  }

  /// The labels of the thread-local roots of the objects of type `typeName` in the snapshot at `path`.
  private func rootLabels(ofType typeName: String, inSnapshotAt path: String) throws -> [String] {
    let snapshot = try HeapSnapshot(jsonBytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    var typeByID: [Int64: String] = [:]
    for index in 0..<snapshot.objectCount { typeByID[snapshot.object(at: index).id] = snapshot.object(at: index).type }
    return snapshot.roots.filter { typeByID[$0.object] == typeName && $0.kind == .threadLocal }.compactMap(\.label)
  }

  private func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("thread-specific-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
  }
}
