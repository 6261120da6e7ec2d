import Foundation
import LeakTestSupport
import XCTest

/// The exit codes are listed once in code (`ExitStatus`), printed by `--help`, and every table of
/// them in the documentation must say the same, so that no copy drifts.
final class ExitCodeTableTests: XCTestCase {
  private static let root = URL(fileURLWithPath: directory()).deletingLastPathComponent().deletingLastPathComponent().path

  /// The rows under EXIT CODES in `leak-detector --help`, as (code, meaning).
  private func helpRows() throws -> [[String]] {
    let help = try BuiltProgram("leak-detector").run(["--help"])
    XCTAssertEqual(help.status, 0, help.standardError)
    let lines = help.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
    let start = try XCTUnwrap(lines.firstIndex(of: "EXIT CODES"), help.standardOutput) + 1
    return lines[start...].prefix { !$0.isEmpty }.map { line in
      let cells = line.trimmingCharacters(in: .whitespaces)
      let code = cells.prefix { $0 != " " }
      return [String(code), cells.dropFirst(code.count).trimmingCharacters(in: .whitespaces)]
    }
  }

  /// Every Markdown table headed `| exit code | meaning |` in the README, `Documentation/` and
  /// the DocC catalogs, by file, as (code, meaning) rows without code spans' backticks.
  private func documentedTables() throws -> [(file: String, rows: [[String]])] {
    var files = ["README.md"]
    for folder in ["Documentation", "Sources"] {
      let enumerator = try XCTUnwrap(FileManager.default.enumerator(atPath: Self.root + "/" + folder))
      for case let path as String in enumerator where path.hasSuffix(".md") { files.append(folder + "/" + path) }
    }
    var tables: [(String, [[String]])] = []
    for file in files {
      let lines = try String(contentsOfFile: Self.root + "/" + file, encoding: .utf8).split(separator: "\n")
      for (index, line) in lines.enumerated() where line.replacingOccurrences(of: " ", with: "") == "|exitcode|meaning|" {
        let rows = lines[(index + 2)...].prefix { $0.hasPrefix("|") }.map { row in
          row.split(separator: "|").map { $0.replacingOccurrences(of: "`", with: "").trimmingCharacters(in: .whitespaces) }
        }
        tables.append((file, rows))
      }
    }
    return tables
  }

  func testExitCodeTables_inTheDocumentation_matchTheHelp() throws {
    let help = try helpRows()
    XCTAssertEqual(help.map(\.[0]), ["0", "1", "2", "4", "5", "N"], "\(help)")
    XCTAssertTrue(help[2][1].contains("diff"), "the help names every command's meaning of 2")
    let tables = try documentedTables()
    XCTAssertTrue(tables.contains { $0.file.hasSuffix("UsingTheCommandLineTool.md") }, "the command-line guide lists the exit codes")
    for table in tables {
      XCTAssertEqual(table.rows, help, "\(table.file): its exit-code table differs from `leak-detector --help` (ExitStatus)")
    }
  }
}
