import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

/// A dictionary key's text (a URL with a session, a user's address) is data: no report, baseline
/// or stripped snapshot the commands write shows it unless `--show-data` asks, and fingerprints
/// never depend on it.
final class DataRedactionTests: RunFixtureTestCase {
  override class var fixtureNames: [String] { ["Leaky"] }

  private let secret = "session=7f3a9c-secret"

  private func directory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("redaction-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
  }

  /// A leaked cycle and a reachable one, each through a key holding the secret.
  private func snapshot(in directory: String, key: String, name: String) throws -> String {
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "DataRedactionTests"))
    builder.addStack(id: 0, frames: [StackFrame(symbol: "App.load() -> ()", file: "Load.swift", line: 7)])
    for (id, type) in [(1, "App.Cache"), (2, "App.Request"), (3, "App.Cache"), (4, "App.Request")] {
      builder.addObject(id: Int64(id), type: type, address: UInt64(id) << 12, size: 48, stack: 0)
    }
    builder.addReference(from: 1, to: 2, label: "pending[\"https://example.com/?\(key)\"]", ownership: .strong)
    builder.addReference(from: 2, to: 1, label: "owner", ownership: .strong)
    builder.addReference(from: 3, to: 4, label: "pending[\"https://example.com/?\(key)\"]", ownership: .strong)
    builder.addReference(from: 4, to: 3, label: "owner", ownership: .strong)
    builder.addRoot(object: 3, kind: .global, label: "App.cache")
    let path = directory + "/" + name
    try Data(builder.snapshot.jsonBytes()).write(to: URL(fileURLWithPath: path))
    return path
  }

  func testEveryReportAndBaseline_hidesTheKeysText_unlessAsked() throws {
    let directory = try directory()
    let heap = try snapshot(in: directory, key: secret, name: "heap.json")
    let tool = try BuiltProgram("leak-detector")
    var outputs: [String: String] = [:]
    for format in ["text", "json", "html", "sarif", "junit", "markdown", "dot"] {
      let run = try tool.run(["analyze", heap, "--format", format])
      outputs["analyze --format \(format)"] = run.standardOutput + run.standardError
    }
    let baseline = directory + "/Baselines/leaks.json"
    let update = try tool.run(["gate", heap, "--baseline", baseline, "--update-baseline"])
    XCTAssertEqual(update.status, 0, update.standardError)
    outputs["baseline"] = try String(contentsOfFile: baseline, encoding: .utf8)
    let gated = try tool.run(
      ["gate", heap, "--baseline", directory + "/empty.json", "--update-baseline"] + ["--report", "sarif:\(directory)/gate.sarif"])
    XCTAssertEqual(gated.status, 0)
    let later = try snapshot(in: directory, key: secret, name: "later.json")
    let diff = try tool.run(["diff", heap, later])
    outputs["diff"] = diff.standardOutput + diff.standardError
    let growth = try tool.run(["growth", heap, later, heap])
    outputs["growth"] = growth.standardOutput + growth.standardError
    XCTAssertEqual(try tool.run(["strip", heap, "--output", directory + "/stripped.json"]).status, 0)
    outputs["strip"] = try String(contentsOfFile: directory + "/stripped.json", encoding: .utf8)
    for (name, text) in outputs {
      XCTAssertFalse(text.contains(secret), "\(name) shows the key's text:\n\(text)")
    }
    XCTAssertTrue(
      outputs["analyze --format text"]?.contains("Cache.pending[…] → Request.owner → Cache") == true, outputs["analyze --format text"] ?? ""
    )
    XCTAssertTrue(outputs["strip"]?.contains("pending[…]") == true)

    let shown = try tool.run(["analyze", heap, "--show-data"])
    XCTAssertTrue(shown.standardOutput.contains(secret), "--show-data shows it:\n\(shown.standardOutput)")
    let fingerprints = { (text: String) in Set(text.matches(of: /fingerprint ([0-9a-f]{16})/).map { String($0.1) }) }
    XCTAssertFalse(fingerprints(shown.standardOutput).isEmpty)
    XCTAssertEqual(
      fingerprints(shown.standardOutput), fingerprints(outputs["analyze --format text"] ?? ""), "fingerprints do not depend on --show-data")
    let other = try snapshot(in: directory, key: "session=another", name: "other.json")
    XCTAssertEqual(try tool.run(["gate", other, "--baseline", baseline]).status, 0, "the same leak under another key is the accepted one")
  }

  /// The labels a capture writes for a dictionary's `String` keys are the ones the reports elide.
  func testRun_aCapturedDictionaryKey_isElidedInTheReport() throws {
    let directory = try directory()
    let kept = directory + "/exit.json"
    let run = try BuiltProgram("leak-detector").run(["run", "--snapshot", kept, "--", programs + "/Leaky"])
    XCTAssertEqual(run.status, 2, run.standardError)
    let raw = try String(contentsOfFile: kept, encoding: .utf8)
    XCTAssertTrue(raw.contains(#"entries[\"a\"]"#), "the private snapshot keeps the key")
    let analysis = try BuiltProgram("leak-detector").run(["analyze", kept])
    XCTAssertTrue(analysis.standardOutput.contains("Cache.entries[…] → Entry.owner → Cache"), analysis.standardOutput)
    XCTAssertFalse(analysis.standardOutput.contains(#"entries["a"]"#), analysis.standardOutput)
  }
}
