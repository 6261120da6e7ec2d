import Foundation
import LeakTestSupport
import XCTest

/// The ANSI colour of every command that colours its text report (`analyze`, `gate`, `diff`;
/// `run`'s in ``RunCommandTests``): by the role of each line, and never a character of the text.
final class ReportColorTests: XCTestCase {
  private var fixtures: String { LeakTestSupport.directory(of: #filePath) + "/Fixtures" }

  /// The report of `arguments` with `--color always`, after checking that without its colour
  /// it is the plain report.
  private func colored(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
    let plain = try BuiltProgram("leak-detector").run(arguments).standardOutput
    let colored = try BuiltProgram("leak-detector").run(arguments + ["--color", "always"]).standardOutput
    XCTAssertEqual(
      colored.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression), plain, file: file, line: line)
    XCTAssertNotEqual(colored, plain, "some colour", file: file, line: line)
    return colored
  }

  func testAnalyze_leaksAndSurvivors_headingsBoldNumbersBoldSuspectsRedDetailsDim() throws {
    let report = try colored(["analyze", fixtures + "/report-heap.json", "--expect-dead-generation", "1"])
    XCTAssertTrue(report.hasPrefix(red("2 retain cycles in 2 strongly connected components") + "\n"), report)
    XCTAssertTrue(report.contains("\n" + dim("Names from App are written without their module.") + "\n"), report)
    XCTAssertTrue(report.contains("\n" + bold("Component 1: 2 objects, 1 cycle (still reachable)") + "\n"), report)
    XCTAssertTrue(report.contains("\n     " + dim("in short: Feed.onUpdate → closure in Feed.load() → Feed") + "\n"), report)
    XCTAssertTrue(report.contains("\n     " + dim("fingerprint ec82309748476178") + "\n"), report)
    XCTAssertTrue(report.contains("\n" + bold("Leaks: 5 objects unreachable from every root, in 2 groups") + "\n"), report)
    XCTAssertTrue(report.contains("\n  " + bold("1)") + " 1 × Vendor.Pool  (2 objects, 1,048 bytes retained;"), report)
    XCTAssertTrue(report.contains("\n" + bold("Survivors: 1 object expected dead still reachable") + "\n"), report)
    XCTAssertTrue(report.contains("\n     suspect ~~~ \u{1B}[31mAppState.feeds[0]\u{1B}[0m; 80 bytes retained"), report)
    XCTAssertTrue(report.contains(" allocated at Screen.show() (\u{1B}[34mScreen.swift:14\u{1B}[0m)\n"), report)
  }

  func testAnalyze_noCyclesAndNoRoots_verdictGreenHeadingBold() throws {
    let report = try colored(["analyze", fixtures + "/no-cycles.json"])
    XCTAssertTrue(report.hasPrefix(green("No retain cycles among 2 objects") + "\n"), report)
    XCTAssertTrue(
      report.hasSuffix("\n" + bold("Leaks: the snapshot lists no roots, so leaked objects cannot be told from live ones.") + "\n"), report)
  }

  func testGate_newFindingsRedFixedGreenPassedGreen() throws {
    let directory = NSTemporaryDirectory() + "gate-color-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let baseline = directory + "/leaks.json"
    let seven = fixtures + "/fb-seven-nodes.json"
    XCTAssertEqual(try BuiltProgram("leak-detector").run(["gate", seven, "--baseline", baseline, "--update-baseline"]).status, 0)

    let passed = try colored(["gate", seven, "--baseline", baseline])
    XCTAssertEqual(passed, green("No new leaks: 3 accepted findings still present.") + "\n")
    let changed = try colored(["gate", fixtures + "/report-heap.json", "--baseline", baseline])
    XCTAssertTrue(
      changed.hasPrefix(
        red("4 new findings (not in the baseline \(baseline)):") + "\n" + dim("Names from App are written without their module.")), changed)
    XCTAssertTrue(changed.contains("\n    allocated at Screen.show() (\u{1B}[34mScreen.swift:14\u{1B}[0m)\n"), changed)
    XCTAssertTrue(changed.contains("\nFix them, or accept them with:\n"), "instructions stay plain:\n\(changed)")
    XCTAssertTrue(changed.contains("\n\u{1B}[1m\u{1B}[32m3 accepted findings no longer found (fixed): "), changed)
  }

  func testDiff_headingsBold_sitesBlue_noChangeGreen() throws {
    let (before, after) = (fixtures + "/no-cycles.json", fixtures + "/report-heap.json")
    let growth = try colored(["diff", before, after])
    XCTAssertTrue(
      growth.hasPrefix(
        bold("From \(before) to \(after):") + "\n  objects 2 -> 8 (+6), bytes 0 -> 1,304 (+1,304)\n"
          + dim("Names from App are written without their module.") + "\n" + bold("Types, by bytes added (7 new, 2 gone):") + "\n"),
      growth)
    XCTAssertTrue(growth.contains("\n" + bold("Retaining paths, by objects added (3 new):") + "\n"), growth)
    XCTAssertTrue(growth.contains("\n    Screen.show() (\u{1B}[34mScreen.swift:14\u{1B}[0m): 1 object, 48 bytes\n"), growth)
    XCTAssertTrue(
      growth.contains(
        "\n" + bold("Findings (4 new):") + "\n  new    cycle: Cache.entries[…] → Entry.owner → Cache (7db09980a38cdacf): 0 -> 1 (+1)\n"),
      growth)
    XCTAssertEqual(try colored(["diff", after, after]), green("No change from \(after) to \(after).") + "\n")
  }
}

/// `text` bold, as headings and item numbers are.
func bold(_ text: String) -> String { "\u{1B}[1m" + text + "\u{1B}[0m" }
/// `text` bold and red, as a verdict that something failed is.
func red(_ text: String) -> String { "\u{1B}[1m\u{1B}[31m" + text + "\u{1B}[0m" }
/// `text` bold and green, as a verdict that nothing failed is.
func green(_ text: String) -> String { "\u{1B}[1m\u{1B}[32m" + text + "\u{1B}[0m" }
/// `text` dim, as details are.
func dim(_ text: String) -> String { "\u{1B}[2m" + text + "\u{1B}[0m" }
/// `text` yellow, as notes are.
func yellow(_ text: String) -> String { "\u{1B}[33m" + text + "\u{1B}[0m" }
