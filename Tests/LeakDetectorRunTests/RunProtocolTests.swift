import Foundation
import HeapGraph
import LeakDetectorRun
import LeakTestSupport
import XCTest

/// What `leak-detector run` and its agent exchange: settings through the environment, exit
/// snapshot names, process descriptions, each written and read back by one definition.
final class RunProtocolTests: XCTestCase {
  func testSettings_environment_readsBackAsTheSameSettings() {
    let settings = RunProtocol.Settings(
      runDirectory: "/tmp/run.1", processPatterns: ["*.xctest", "swiftpm-testing-helper"], recordsStacks: false,
      snapshotDirectory: "snapshots", snapshotSignal: 12)
    let environment = settings.environment
    XCTAssertEqual(
      environment,
      [
        "LEAK_DETECTOR_RUN_DIRECTORY": "/tmp/run.1", "LEAK_DETECTOR_PROCESSES": "*.xctest\nswiftpm-testing-helper",
        "LEAK_DETECTOR_STACKS": "0", "LEAK_DETECTOR_SNAPSHOT_DIRECTORY": "snapshots", "LEAK_DETECTOR_SNAPSHOT_SIGNAL": "12",
      ])
    XCTAssertEqual(RunProtocol.Settings(environment: { environment[$0.rawValue] }), settings)
    var sampled = settings
    sampled.sampleInterval = 524_288
    XCTAssertEqual(sampled.environment["LEAK_DETECTOR_SAMPLE_INTERVAL"], "524288")
    XCTAssertEqual(RunProtocol.Settings(environment: { sampled.environment[$0.rawValue] }), sampled)

    var withoutSignal = settings
    withoutSignal.snapshotSignal = nil
    withoutSignal.recordsStacks = true
    XCTAssertNil(withoutSignal.environment["LEAK_DETECTOR_SNAPSHOT_SIGNAL"])
    XCTAssertEqual(RunProtocol.Settings(environment: { withoutSignal.environment[$0.rawValue] }), withoutSignal)
  }

  func testSettings_withoutARunDirectory_areNone_otherVariablesHaveDefaults() {
    XCTAssertNil(RunProtocol.Settings(environment: { _ in nil }))
    XCTAssertNil(RunProtocol.Settings(environment: { $0 == .runDirectory ? "" : "1" }))
    let defaults = RunProtocol.Settings(environment: { $0 == .runDirectory ? "/tmp/run.2" : nil })
    XCTAssertEqual(
      defaults,
      RunProtocol.Settings(
        runDirectory: "/tmp/run.2", processPatterns: [], recordsStacks: true, snapshotDirectory: ".", snapshotSignal: nil))
  }

  func testExitSnapshotName_readsBackItsProcess_otherNamesAreNone() {
    XCTAssertEqual(RunProtocol.exitSnapshotFileName(processID: 4242), "4242.exit.heapsnapshot.bin")
    XCTAssertEqual(RunProtocol.processID(ofExitSnapshot: RunProtocol.exitSnapshotFileName(processID: 4242)), 4242)
    for name in [".4242.exit.heapsnapshot.bin.Ab12Cd", "server.exit.heapsnapshot.bin", "4242.heapsnapshot.json", ""] {
      XCTAssertNil(RunProtocol.processID(ofExitSnapshot: name), name)
    }
  }

  /// The file a checked process writes when it starts reads back as its description and its
  /// parent, also when an argument holds a line break.
  func testStartedFile_readsBackItsDescriptionAndParent() throws {
    let process = RunProtocol.ProcessDescription(arguments: ["/b/AppPackageTests.xctest", "AppTests.CrashTests/testCrash"], processID: 42)
    let read = try XCTUnwrap(RunProtocol.startedProcess(fileBytes: RunProtocol.startedFileBytes(process: process, parentProcessID: 7)))
    XCTAssertEqual(read.description, "AppPackageTests.xctest AppTests.CrashTests/testCrash (pid 42)")
    XCTAssertEqual(read.parentProcessID, 7)
    let twoLines = RunProtocol.ProcessDescription(arguments: ["/bin/sh", "-c", "a\nb"], processID: 43)
    let readTwoLines = try XCTUnwrap(
      RunProtocol.startedProcess(fileBytes: RunProtocol.startedFileBytes(process: twoLines, parentProcessID: 8)))
    XCTAssertEqual(readTwoLines.description, "sh -c a b (pid 43)")
    XCTAssertEqual(readTwoLines.parentProcessID, 8)
    XCTAssertEqual(RunProtocol.processID(ofStartedFile: RunProtocol.startedFileName(processID: 42)), 42)
    XCTAssertNil(RunProtocol.processID(ofStartedFile: "42.exit.heapsnapshot.bin"))
  }

  func testProcessDescription_namesTheExecutableWithoutItsDirectory_andReadsBack() throws {
    let process = RunProtocol.ProcessDescription(
      arguments: ["/p/.build/debug/PetsPackageTests.xctest", "--testing-library", "swift-testing"], processID: 11)
    XCTAssertEqual(process.description, "PetsPackageTests.xctest --testing-library swift-testing (pid 11)")
    XCTAssertEqual(process.program, "PetsPackageTests.xctest")

    let underThePlugin = RunProtocol.ProcessDescription(
      arguments: [
        "/p/.build/debug/PetsPackageTests.xctest", "--scratch-path", "/p/.build", "--ignore-lock", "--testing-library", "swift-testing",
      ],
      processID: 11)
    XCTAssertEqual(underThePlugin, process)

    let long = RunProtocol.ProcessDescription(arguments: ["server"] + Array(repeating: "--verbose", count: 40), processID: 7)
    XCTAssertEqual(long.commandLine.count, RunProtocol.ProcessDescription.maxCommandLineLength + 1)
    XCTAssertTrue(long.description.hasSuffix("… (pid 7)"), long.description)
  }

  /// The agent's C loader reads its variables before Swift runs, so `CLeakPreload.h` spells their
  /// names too: each `CLEAK_PRELOAD_<NAME>_VARIABLE` must be the variable of the same name here.
  func testLoaderHeader_spellsEveryVariableItDefinesAsTheProtocolDoes() throws {
    let root = URL(fileURLWithPath: LeakTestSupport.directory(of: #filePath)).deletingLastPathComponent().deletingLastPathComponent()
    let header = try String(contentsOf: root.appendingPathComponent("Sources/CLeakPreload/include/CLeakPreload.h"), encoding: .utf8)
    let definition = try NSRegularExpression(pattern: #"^#define CLEAK_PRELOAD_([A-Z_]+)_VARIABLE "([^"]*)"$"#, options: .anchorsMatchLines)
    let defined = definition.matches(in: header, range: NSRange(header.startIndex..., in: header)).map { match in
      (name: String(header[Range(match.range(at: 1), in: header)!]), value: String(header[Range(match.range(at: 2), in: header)!]))
    }
    XCTAssertTrue(Set(defined.map(\.name)).isSuperset(of: ["RUN_DIRECTORY", "PROCESSES"]), header)
    for (name, value) in defined {
      let words = name.lowercased().split(separator: "_")
      let caseName = words[0] + words.dropFirst().map(\.capitalized).joined()
      let variable = try XCTUnwrap(RunProtocol.Variable.allCases.first { "\($0)" == caseName }, name)
      XCTAssertEqual(value, variable.rawValue, name)
    }
  }

  func testProfileSettingAndNames_roundTrip_andAreNoSnapshots() {
    var settings = RunProtocol.Settings(
      runDirectory: "/tmp/run.3", processPatterns: ["Server"], recordsStacks: true, snapshotDirectory: ".", snapshotSignal: nil)
    XCTAssertFalse(settings.writesProfiles)
    XCTAssertNil(settings.environment["LEAK_DETECTOR_PROFILES"])
    settings.writesProfiles = true
    XCTAssertEqual(settings.environment["LEAK_DETECTOR_PROFILES"], "1")
    XCTAssertEqual(RunProtocol.Settings(environment: { settings.environment[$0.rawValue] }), settings)
    XCTAssertEqual(RunProtocol.exitProfileFileName(processID: 4242), "4242.exit.pb.gz")
    XCTAssertNil(RunProtocol.processID(ofExitSnapshot: RunProtocol.exitProfileFileName(processID: 4242)))
    let live = RunProtocol.liveProfileFileName(program: "my-server", processID: 4242, number: 3)
    XCTAssertEqual(live, "my-server-4242-3.pb.gz", "the snapshot's name, with the profile's extension")
    XCTAssertNil(RunProtocol.liveSnapshotNumber(live, processID: 4242))
  }

  func testLiveSnapshotNames_roundTrip_andOnlyTheProcessesOwnAreFound() {
    let name = RunProtocol.liveSnapshotFileName(program: "my-server", processID: 4242, number: 3, isJSON: true)
    XCTAssertEqual(name, "my-server-4242-3.heapsnapshot.json")
    XCTAssertEqual(RunProtocol.liveSnapshotNumber(name, processID: 4242), 3)
    XCTAssertEqual(RunProtocol.liveSnapshotNumber("my-server-4242-12.heapsnapshot", processID: 4242), 12)
    XCTAssertNil(RunProtocol.liveSnapshotNumber(name, processID: 424))
    XCTAssertNil(RunProtocol.liveSnapshotNumber("4242.exit.heapsnapshot.bin", processID: 4242))
    XCTAssertNil(RunProtocol.liveSnapshotNumber("notes-4242-1.txt", processID: 4242))
  }

  func testSnapshotInterval_travelsThroughTheEnvironment() {
    let settings = RunProtocol.Settings(
      runDirectory: "/r", processPatterns: ["App"], recordsStacks: true, snapshotDirectory: ".", snapshotSignal: nil, snapshotInterval: 0.5)
    XCTAssertEqual(RunProtocol.Settings(environment: { settings.environment[$0.rawValue] })?.snapshotInterval, 0.5)
    XCTAssertNil(
      RunProtocol.Settings(environment: { $0 == .snapshotInterval ? "-1" : settings.environment[$0.rawValue] })?.snapshotInterval)
  }
}
