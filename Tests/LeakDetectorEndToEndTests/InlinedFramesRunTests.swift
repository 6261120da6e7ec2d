import Foundation
import LeakTestSupport
import XCTest

/// `leak-detector run` on `Fixtures/Run/Inlined.swift` built with `-O -g` and with `-Onone -g`,
/// whatever this test run's own optimization: allocation sites name the line that made each
/// object in both, and optimized code's inlined functions show as such.
final class InlinedFramesRunTests: RunFixtureTestCase {
  override class func buildExtras(in directory: String) throws {
    let swiftc = try BuiltProgram.tool("swiftc")
    for optimization in ["-O", "-Onone"] {
      let compile = try swiftc.run([
        optimization, "-g", RunFixturePrograms.sources + "/Inlined.swift", "-o", directory + "/Inlined" + optimization,
      ])
      guard compile.status == 0 else {
        throw RunFixturePrograms.BuildFailure(description: "Inlined.swift (\(optimization)) did not compile:\n\(compile.standardError)")
      }
    }
  }

  private func report(_ optimization: String) throws -> String {
    let result = try BuiltProgram("leak-detector").run(["run", "--", programs + "/Inlined" + optimization])
    XCTAssertEqual(result.status, 2, result.standardOutput + result.standardError)
    return result.standardOutput
  }

  /// The lines both builds name: an initializer's call, the line after a loop, an initializer's
  /// own line and an inlined helper's.
  private func assertNamesTheLinesThatMadeTheObjects(_ report: String, file: StaticString = #filePath, line: UInt = #line) {
    for site in [
      "- Owner.pets[0]  allocated at plant() (Inlined.swift:22)", "- Pet.owner  allocated at plant() (Inlined.swift:22)",
      "- Ticker.onTick  allocated at plant() (Inlined.swift:23)", "- House.tag  allocated at plant() (Inlined.swift:24)",
      "- Tag.house  allocated at House.init() (Inlined.swift:16)", "- Walker.dog  allocated at plant() (Inlined.swift:25)",
      "- Dog.walker  allocated at adopt(by:) (Inlined.swift:19)",
    ] {
      XCTAssertTrue(report.contains(site), "\(site) in:\n\(report)", file: file, line: line)
    }
  }

  func testRun_optimizedProgram_namesTheLinesThatMadeTheObjectsAndWhereInlinedCodeIs() throws {
    let report = try report("-O")
    assertNamesTheLinesThatMadeTheObjects(report)
    XCTAssertTrue(report.contains("allocated at House.init() (Inlined.swift:16), inlined in plant() (Inlined.swift:24)\n"), report)
    XCTAssertTrue(report.contains("allocated at adopt(by:) (Inlined.swift:19), inlined in plant() (Inlined.swift:25)\n"), report)
  }

  func testRun_unoptimizedProgram_namesTheSameLinesWithNothingInlined() throws {
    let report = try report("-Onone")
    assertNamesTheLinesThatMadeTheObjects(report)
    XCTAssertFalse(report.contains("inlined in"), report)
  }

  /// The JSON report's site says the function that holds inlined code (`inlinedIn`).
  func testRun_optimizedProgram_jsonSiteSaysWhereInlinedCodeIs() throws {
    let report = programs + "/inlined-report.json"  // removed with the programs
    let result = try BuiltProgram("leak-detector").run(["run", "--format", "json", "--output", report, "--", programs + "/Inlined-O"])
    XCTAssertEqual(result.status, 2, result.standardError)
    let json = try String(contentsOfFile: report, encoding: .utf8)
    XCTAssertTrue(
      json.contains(#""function": "main.House.init() -> main.House", "file": "#)
        && json.contains(#"Inlined.swift", "line": 16, "inlinedIn": {"function": "main.plant() -> ()", "file": "#), json)
  }

  /// The snapshot keeps the inlined initializer as a frame of its own, marked inlined, with the
  /// return address of the frame that holds its code.
  func testRun_optimizedProgram_snapshotHoldsInlinedFrames() throws {
    let snapshot = programs + "/inlined.json"  // removed with the programs
    let result = try BuiltProgram("leak-detector").run(["run", "--snapshot", snapshot, "--", programs + "/Inlined-O"])
    XCTAssertEqual(result.status, 2, result.standardError)
    let json = try String(contentsOfFile: snapshot, encoding: .utf8)
    XCTAssertTrue(json.contains("\"symbol\": \"main.House.init() -> main.House\""), "House.init is no frame of its own")
    XCTAssertTrue(json.contains("\"inlined\": true"), "no frame is marked inlined")
  }
}
