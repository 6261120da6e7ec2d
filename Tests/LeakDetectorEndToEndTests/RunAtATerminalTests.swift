import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

/// `leak-detector run` as a person at a terminal uses it: an interrupt sent to the command ends
/// the program and the report follows, captures leave no child behind, each capture says how long
/// it took, and the text report is printed whatever the machine-readable report is.
final class RunAtATerminalTests: RunFixtureTestCase {
  override class var fixtureNames: [String] { ["Interruptible", "Leaky", "ForkedChild"] }

  /// `kill -INT` of the command alone (not of the terminal's whole group): passed on, the program
  /// ends as an interrupt ends it, its agent captures first, and the report follows with the
  /// program's status, 130 as shells say.
  func testInterruptSentToTheCommandOnly_endsTheProgramAndTheReportFollows() throws {
    let directory = try temporaryDirectory()
    let command = try started(["run", "--", programs + "/Interruptible", directory])
    XCTAssertTrue(eventually { FileManager.default.fileExists(atPath: directory + "/ready") }, "the program did not start")
    kill(command.process.processIdentifier, SIGINT)
    let result = command.finish()
    XCTAssertEqual(result.status, 128 + SIGINT, result.standardError)
    XCTAssertTrue(result.standardOutput.contains("Leaks: 2 objects in 1 group"), result.standardOutput)
    XCTAssertTrue(result.standardOutput.contains("Session.connection"), result.standardOutput)
    XCTAssertTrue(result.standardError.contains("Interruptible was killed by signal 2 (Interrupt)\n"), result.standardError)
    XCTAssertFalse(result.standardError.contains("takes no exit snapshot"), result.standardError)
    XCTAssertNotNil(
      result.standardOutput.range(
        of: #"Checked Interruptible \S+ \(pid \d+\): \d+ objects when it exited, 2 leaked \(captured in \d+\.\d\d s\)\n"#,
        options: .regularExpression),
      result.standardOutput)
  }

  /// An interrupt that reaches the program during its exit capture (in an exit handler) waits
  /// for the capture, then ends the program as an interrupt: the report has its leaks, and the
  /// status is the interrupt's, not the exit's.
  func testInterruptDuringTheExitCapture_endsTheProgramOnceCaptured() throws {
    let directory = try temporaryDirectory()
    let command = try started(["run", "--", programs + "/Interruptible", directory, "exit"])
    XCTAssertTrue(eventually { FileManager.default.fileExists(atPath: directory + "/ready") }, "the program did not start")
    let program = try XCTUnwrap(children(of: command.process.processIdentifier).first, "leak-detector started no program")
    XCTAssertTrue(eventually { !self.children(of: program).isEmpty }, "the program's exit capture forked no child")
    kill(program, SIGINT)
    let result = command.finish()
    XCTAssertEqual(result.status, 128 + SIGINT, result.standardError)
    XCTAssertTrue(result.standardOutput.contains("Leaks: 2 objects in 1 group"), result.standardOutput)
  }

  /// A child the program forks inherits the agent's handlers but not its thread: a termination
  /// request ends that child as it would have, and the program is neither captured nor ended by it.
  func testTerminationRequestToAForkedChild_endsTheChildOnly() throws {
    let result = try BuiltProgram("leak-detector").run(["run", "--", programs + "/ForkedChild"])
    XCTAssertEqual(result.status, 0, result.standardOutput + result.standardError)
    XCTAssertTrue(result.standardOutput.hasPrefix("child ended by signal 15\n"), result.standardOutput)
    XCTAssertTrue(result.standardOutput.contains("\nLeaks: none\n"), result.standardOutput)
  }

  /// A snapshot on the signal: the line that says where it is says how long it took, and the
  /// capture's process is reaped at once (the program has no child left).
  func testSignalSnapshot_saysHowLongItTookAndLeavesNoChild() throws {
    let directory = try temporaryDirectory()
    let command = try started([
      "run", "--snapshot-signal", "USR2", "--snapshot-directory", directory, "--", programs + "/Interruptible", directory,
    ])
    XCTAssertTrue(eventually { FileManager.default.fileExists(atPath: directory + "/ready") }, "the program did not start")
    let program = try XCTUnwrap(children(of: command.process.processIdentifier).first, "leak-detector started no program")
    kill(command.process.processIdentifier, SIGUSR2)
    XCTAssertTrue(
      eventually {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).contains { $0.hasSuffix(".heapsnapshot.json") }
      })
    XCTAssertTrue(
      eventually(within: .seconds(10)) { self.children(of: program).isEmpty },
      "the capture's process is still a child of the program: \(children(of: program))")
    kill(program, SIGTERM)
    let result = command.finish()
    XCTAssertEqual(result.status, 128 + SIGTERM, result.standardError)
    XCTAssertNotNil(
      result.standardError.range(
        of: #"leak-detector: snapshot 1 of Interruptible \(pid \d+\), \d+ objects \(captured in \d+\.\d\d s\): "#,
        options: .regularExpression),
      result.standardError)
  }

  /// `--format json` on standard output: the run report (a JSON document), and the text report on
  /// standard error; to a file, the text report on standard output.
  func testJSONReport_withTheTextReportForPeople() throws {
    let directory = try temporaryDirectory()
    let piped = try BuiltProgram("leak-detector").run(["run", "--format", "json", "--", programs + "/Leaky"])
    XCTAssertEqual(piped.status, 2, piped.standardError)
    let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(report(in: piped.standardOutput).utf8)) as? [String: Any])
    XCTAssertEqual(document["format"] as? String, "swift-leak-run")
    let processes = try XCTUnwrap(document["processes"] as? [[String: Any]])
    XCTAssertEqual(processes.count, 1)
    XCTAssertNotNil(processes[0]["pid"] as? Int)
    XCTAssertNotNil(processes[0]["captureMilliseconds"] as? Int)
    let leaks = try XCTUnwrap(document["leaks"] as? [[String: Any]])
    XCTAssertEqual(leaks.count, 2)
    XCTAssertTrue(leaks.allSatisfy { ($0["fingerprint"] as? String)?.count == 16 && !(($0["entry"] as? [Any]) ?? []).isEmpty })
    XCTAssertTrue(piped.standardError.contains("Leaks: 9 objects in 2 groups"), piped.standardError)

    let file = directory + "/run.json"
    let toFile = try BuiltProgram("leak-detector").run(["run", "--format", "json", "--output", file, "--", programs + "/Leaky"])
    XCTAssertEqual(toFile.status, 2, toFile.standardError)
    XCTAssertTrue(toFile.standardOutput.contains("Leaks: 9 objects in 2 groups"), toFile.standardOutput)
    XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
  }

  /// With a baseline, the JSON run report keeps the gate's outcome; writing the baseline prints
  /// the text report too.
  func testBaseline_updatePrintsTheReport_andTheJSONReportKeepsTheGateOutcome() throws {
    let directory = try temporaryDirectory()
    let baseline = directory + "/leaks.json"
    let update = try BuiltProgram("leak-detector").run(["run", "--baseline", baseline, "--update-baseline", "--", programs + "/Leaky"])
    XCTAssertEqual(update.status, 0, update.standardError)
    XCTAssertTrue(update.standardOutput.contains("Leaks: 9 objects in 2 groups"), update.standardOutput)
    let gated = try BuiltProgram("leak-detector").run(["run", "--baseline", baseline, "--format", "json", "--", programs + "/Leaky"])
    XCTAssertEqual(gated.status, 0, gated.standardError)
    let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(report(in: gated.standardOutput).utf8)) as? [String: Any])
    let gate = try XCTUnwrap(document["gate"] as? [String: Any])
    XCTAssertEqual((gate["new"] as? [Any])?.count, 0)
    XCTAssertEqual((gate["accepted"] as? [Any])?.count, 2)
    XCTAssertEqual((document["leaks"] as? [Any])?.count, 2)
    XCTAssertTrue(gated.standardError.contains("Leaks: 9 objects in 2 groups"), gated.standardError)
  }

  // MARK: - Helpers

  /// The JSON document that follows what the program printed on standard output.
  private func report(in output: String) -> String {
    String(output[(output.range(of: "\n{\n")?.lowerBound ?? output.startIndex)...])
  }

  /// A command started with its streams collected into files.
  private struct Started {
    var process: Process
    var output: URL
    var error: URL

    /// How it ended, and what it wrote.
    struct Finished {
      var status: Int32
      var standardOutput: String
      var standardError: String
    }

    func finish() -> Finished {
      process.waitUntilExit()
      let read = { (url: URL) in (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
      return Finished(status: process.terminationStatus, standardOutput: read(output), standardError: read(error))
    }
  }

  private func started(_ arguments: [String]) throws -> Started {
    let directory = try temporaryDirectory()
    let output = URL(fileURLWithPath: directory + "/stdout")
    let error = URL(fileURLWithPath: directory + "/stderr")
    XCTAssertTrue(FileManager.default.createFile(atPath: output.path, contents: nil))
    XCTAssertTrue(FileManager.default.createFile(atPath: error.path, contents: nil))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try BuiltProgram("leak-detector").path)
    process.arguments = arguments
    process.standardOutput = try FileHandle(forWritingTo: output)
    process.standardError = try FileHandle(forWritingTo: error)
    try process.run()
    addTeardownBlock {
      if process.isRunning {
        for child in self.children(of: process.processIdentifier) { kill(child, SIGKILL) }
        process.terminate()
      }
    }
    return Started(process: process, output: output, error: error)
  }

  /// The children of process `id`, from each of its threads' `/proc` entry.
  private func children(of id: Int32) -> [Int32] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(id)/task")) ?? []
    return tasks.flatMap { task in
      ((try? String(contentsOfFile: "/proc/\(id)/task/\(task)/children", encoding: .utf8)) ?? "").split(separator: " ").compactMap {
        Int32($0)
      }
    }
  }

  private func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("terminal-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
  }
}
