import HeapGraph
import LeakTestSupport
import XCTest

/// Runs the built `leak-detector` executable as a user would: output, messages and exit codes.
final class AnalyzeCommandTests: XCTestCase {
  private var fixtures: String { directory() + "/Fixtures" }

  private func run(_ arguments: [String]) throws -> BuiltProgram.Run {
    try BuiltProgram("leak-detector").run(arguments)
  }

  // MARK: - Findings

  /// Colour only when asked or on a terminal: a pipe gets plain text, whatever NO_COLOR says;
  /// `--full-names` writes names as the snapshot has them.
  func testAnalyze_colorAndFullNames() throws {
    let plain = try run(["analyze", fixtures + "/fb-seven-nodes.json"])
    XCTAssertFalse(plain.standardOutput.contains("\u{1B}["), plain.standardOutput)
    let colored = try run(["analyze", fixtures + "/fb-seven-nodes.json", "--color", "always"])
    XCTAssertTrue(
      colored.standardOutput.hasPrefix("\u{1B}[1m\u{1B}[31m3 retain cycles in 1 strongly connected component\u{1B}[0m\n"),
      colored.standardOutput)
    XCTAssertTrue(colored.standardOutput.contains("\u{1B}[1m1)\u{1B}[0m Node.second → Node.first → Node\n"), colored.standardOutput)
    XCTAssertTrue(colored.standardOutput.contains("allocated at makeGraph() (\u{1B}[34mGraph.swift:12\u{1B}[0m)"), colored.standardOutput)
    let stripped = colored.standardOutput.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
    XCTAssertEqual(stripped, plain.standardOutput, "colour changes no text")
    let full = try run(["analyze", fixtures + "/fb-seven-nodes.json", "--full-names"])
    XCTAssertTrue(full.standardOutput.contains("1) Demo.Node.second -> Demo.Node.first -> Demo.Node\n"), full.standardOutput)
    XCTAssertTrue(full.standardOutput.contains("allocated at Demo.makeGraph() -> Demo.Node (Graph.swift:12)"), full.standardOutput)
    let json = try run(["analyze", fixtures + "/fb-seven-nodes.json", "--color", "always", "--format", "json"])
    XCTAssertFalse(json.standardOutput.contains("\u{1B}["), "only text reports are coloured")
  }

  func testAnalyze_sevenNodeSnapshot_printsItsThreeCyclesAndExitsWithTwo() throws {
    let result = try run(["analyze", fixtures + "/fb-seven-nodes.json"])
    XCTAssertEqual(result.status, 2, result.standardError)
    XCTAssertTrue(result.standardOutput.hasPrefix("3 retain cycles in 1 strongly connected component\n"), result.standardOutput)
    XCTAssertTrue(result.standardOutput.contains("1) Node.second → Node.first → Node\n"))
    XCTAssertTrue(result.standardOutput.contains("2) Node.first → Node.first → Node.first → Node\n"))
    XCTAssertTrue(result.standardOutput.contains("3) Node.second → Node.second → Node.first → Node\n"))
    XCTAssertTrue(result.standardOutput.contains("allocated at makeGraph() (Graph.swift:12)"))
    XCTAssertEqual(result.standardError, "")
  }

  func testAnalyze_noCycles_exitsWithZero() throws {
    let result = try run(["analyze", fixtures + "/no-cycles.json"])
    XCTAssertEqual(result.status, 0, result.standardError)
    XCTAssertTrue(result.standardOutput.hasPrefix("No retain cycles among 2 objects\n"), result.standardOutput)
  }

  func testAnalyze_snapshotWithCaptureDiagnostics_notesThemOnStandardError() throws {
    let path = NSTemporaryDirectory() + "diagnostics-\(UUID().uuidString).json"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let diagnostics = (1...7).map { "\"problem \($0)\"" }.joined(separator: ", ")
    let snapshot = """
      {"format": "swift-heap-snapshot", "version": 1, "metadata": {"diagnostics": [\(diagnostics)]},
       "objects": [{"id": 1, "type": "MyApp.Parent"}], "references": []}
      """
    try snapshot.write(toFile: path, atomically: true, encoding: .utf8)
    let result = try run(["analyze", path])
    XCTAssertEqual(result.status, 0, result.standardError)
    let name = (path as NSString).lastPathComponent
    XCTAssertEqual(
      result.standardError,
      "leak-detector: note: \(path) was captured with 7 diagnostics:\n"
        + (1...5).map { "  problem \($0)\n" }.joined() + "  … and 2 more in its metadata.diagnostics\n", name)
  }

  func testAnalyze_jsonFormat_listsElementsWithObjectIDs() throws {
    let result = try run(["analyze", fixtures + "/fb-seven-nodes.json", "--format", "json"])
    XCTAssertEqual(result.status, 2)
    let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    let cycles = try XCTUnwrap(report["cycles"] as? [[String: Any]])
    let ids = cycles.map { ($0["elements"] as? [[String: Any]] ?? []).compactMap { $0["object"] as? Int } }
    XCTAssertEqual(ids, [[1, 3], [1, 2, 4], [2, 5, 7]])
  }

  func testAnalyze_maxCycleLengthTwo_findsOnlyTheTwoCycle() throws {
    let result = try run(["analyze", fixtures + "/fb-seven-nodes.json", "--max-cycle-length", "2"])
    XCTAssertEqual(result.status, 2)
    XCTAssertTrue(result.standardOutput.hasPrefix("1 retain cycle in 1 strongly connected component"), result.standardOutput)
  }

  func testAnalyze_outputFile_isWrittenAndStdoutStaysEmpty() throws {
    let path = NSTemporaryDirectory() + "report-\(UUID().uuidString).json"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = try run(["analyze", fixtures + "/fb-seven-nodes.json", "--format", "json", "--output", path])
    XCTAssertEqual(result.status, 2)
    XCTAssertEqual(result.standardOutput, "")
    let written = try String(contentsOfFile: path, encoding: .utf8)
    XCTAssertTrue(written.contains("\"format\": \"swift-leak-report\""))
  }

  /// A server's heap mid-load, as `--source-root /srv/app` sees it: two open connections of
  /// the framework (reachable, folded by default), the package's own reachable cycle, and a leak.
  private func serverSnapshot() throws -> String {
    var builder = HeapSnapshot.Builder(metadata: .init(process: "Server"))
    builder.addStack(
      id: 1,
      frames: [
        StackFrame(
          symbol: "NIOCore.ChannelPipeline.init() -> NIOCore.ChannelPipeline",
          file: "/srv/app/.build/checkouts/swift-nio/Sources/NIOCore/ChannelPipeline.swift", line: 1064)
      ])
    builder.addStack(
      id: 2, frames: [StackFrame(symbol: "App.Routes.register() -> ()", file: "/srv/app/Sources/App/Routes.swift", line: 12)])
    builder.addObject(id: 1, type: "NIOPosix.EventLoop", stack: 1)
    builder.addRoot(object: 1, kind: "global", label: "NIOPosix.loop")
    for base: Int64 in [10, 20] {
      builder.addObject(id: base, type: "NIOCore.ChannelHandlerContext", stack: 1)
      builder.addObject(id: base + 1, type: "NIOCore.ChannelHandlerContext", stack: 1)
      builder.addReference(from: 1, to: base, label: "channels[\(base)]", ownership: .strong)
      builder.addReference(from: base, to: base + 1, label: "next", ownership: .strong)
      builder.addReference(from: base + 1, to: base, label: "prev", ownership: .strong)
    }
    builder.addObject(id: 30, type: "App.Router", stack: 2)
    builder.addObject(id: 31, type: "closure #1 in App.Routes.register()", stack: 2)
    builder.addReference(from: 1, to: 30, label: "router", ownership: .strong)
    builder.addReference(from: 30, to: 31, label: "handler", ownership: .strong)
    builder.addReference(from: 31, to: 30, label: "capture #0: Router", ownership: .strong)
    builder.addObject(id: 40, type: "App.Session", stack: 2)
    builder.addObject(id: 41, type: "App.Request", stack: 2)
    builder.addReference(from: 40, to: 41, label: "request", ownership: .strong)
    builder.addReference(from: 41, to: 40, label: "session", ownership: .strong)
    let path = NSTemporaryDirectory() + "server-\(UUID().uuidString).json"
    try Data(builder.snapshot.jsonBytes()).write(to: URL(fileURLWithPath: path))
    addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
  }

  /// The leak first, the package's own reachable cycle next, the framework's open connections
  /// counted in one line that names `--all-cycles`, which lists them; JSON always has them all.
  func testAnalyze_serverHeap_foldsTheFrameworksReachableCyclesUnlessAllCycles() throws {
    let snapshot = try serverSnapshot()
    let folded = try run(["analyze", snapshot, "--source-root", "/srv/app"])
    XCTAssertEqual(folded.status, 2, folded.standardError)
    let text = folded.standardOutput
    let leak = try XCTUnwrap(text.range(of: "Leaks: 2 objects unreachable from every root, in 1 group\n"), text)
    let own = try XCTUnwrap(text.range(of: "(still reachable)\n  1) Router.handler"), text)
    let line =
      "2 more components of dependencies' types still reachable (open connections, caches; 2 cycles): "
      + "2 × ChannelHandlerContext.next → ChannelHandlerContext.prev → ChannelHandlerContext; --all-cycles lists them\n"
    let foldedLine = try XCTUnwrap(text.range(of: line), text)
    XCTAssertTrue(leak.lowerBound < own.lowerBound && own.lowerBound < foldedLine.lowerBound, text)
    XCTAssertFalse(text.contains("object 10"), text)

    let all = try run(["analyze", snapshot, "--source-root", "/srv/app", "--all-cycles"]).standardOutput
    XCTAssertFalse(all.contains("--all-cycles lists them"), all)
    XCTAssertTrue(all.contains("- NIOCore.ChannelHandlerContext (object 10)"), all)
    let markdown = try run(["analyze", snapshot, "--source-root", "/srv/app", "--format", "markdown"]).standardOutput
    XCTAssertTrue(markdown.contains("; --all-cycles lists them\n"), markdown)
    let json = try run(["analyze", snapshot, "--source-root", "/srv/app", "--format", "json"]).standardOutput
    XCTAssertTrue(json.contains("\"object\": 10"), "JSON lists every cycle")
    // Analysed outside its package, no frame is the package's own: nothing is folded.
    let elsewhere = try run(["analyze", snapshot, "--source-root", "/elsewhere"]).standardOutput
    XCTAssertFalse(elsewhere.contains("--all-cycles lists them"), elsewhere)
  }

  // MARK: - Bad input

  func testAnalyze_malformedInputs_nameTheProblemAndExitWithOne() throws {
    let cases: [(file: String, message: String)] = [
      ("missing.json", "missing.json: cannot open: No such file or directory"),
      ("empty.json", "empty.json: the file is empty (0 bytes)"),
      (
        "binary.bin",
        "binary.bin: expected a JSON object with \"format\": \"swift-heap-snapshot\", found byte 0x7F (binary data, not JSON text) (byte 0, line 1, column 1)"
      ),
      ("truncated.json", "truncated.json: objects[1]: the file ends early"),
      ("dangling-reference.json", "dangling-reference.json: references[0].to: no object has id 42"),
    ]
    for (file, message) in cases {
      let result = try run(["analyze", fixtures + "/" + file])
      XCTAssertEqual(result.status, 1, file)
      XCTAssertEqual(result.standardOutput, "", file)
      XCTAssertTrue(result.standardError.hasPrefix("leak-detector: error: "), "\(file): \(result.standardError)")
      XCTAssertTrue(result.standardError.contains(message), "\(file): \(result.standardError)")
    }
  }

  func testAnalyze_everyKindOfMalformedSnapshot_isNamedWithExitCodeOne() throws {
    let header = #"{"format": "swift-heap-snapshot", "version": 1, "#
    let cases: [(name: String, text: String, message: String)] = [
      ("invalid-json", header + #""objects": [}"#, "objects[0]: expected an object record, found '}'"),
      (
        "invalid-syntax", header + #""objects": [{"id": 1,, "type": "A"}], "references": []}"#,
        "objects[0]: invalid JSON: expected a quoted key, found ','"
      ),
      ("missing-field", header + #""objects": [{"id": 1}], "references": []}"#, "objects[0]: missing required field \"type\""),
      (
        "wrong-type", header + #""objects": [{"id": "one", "type": "A"}], "references": []}"#,
        "objects[0].id: expected an integer, found a string"
      ),
      (
        "duplicate-id", header + #""objects": [{"id": 1, "type": "A"}, {"id": 1, "type": "B"}], "references": []}"#,
        "objects[1].id: object id 1 is used twice (first by objects[0])"
      ),
      (
        "unknown-ownership", header + #""objects": [{"id": 1, "type": "A"}], "references": [{"from": 1, "to": 1, "ownership": "sturdy"}]}"#,
        "references[0].ownership: unknown ownership \"sturdy\""
      ),
      (
        "unsupported-version", #"{"format": "swift-heap-snapshot", "version": 9, "objects": [], "references": []}"#,
        "version: snapshot version 9 is not supported"
      ),
      ("absurd-size", header + #""objects": [{"id": 1, "type": "A", "size": -1}], "references": []}"#, "objects[0].size: -1 is negative"),
      ("not-a-snapshot", #"{"format": "pprof"}"#, "format: not a heap snapshot: \"format\" is \"pprof\""),
    ]
    let directory = NSTemporaryDirectory() + "malformed-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    for (name, text, message) in cases {
      let path = "\(directory)/\(name).json"
      try text.write(toFile: path, atomically: true, encoding: .utf8)
      let result = try run(["analyze", path])
      XCTAssertEqual(result.status, 1, name)
      XCTAssertEqual(result.standardOutput, "", name)
      XCTAssertTrue(result.standardError.contains("\(name).json: \(message)"), "\(name): \(result.standardError)")
      XCTAssertTrue(result.standardError.contains("(byte "), "\(name) names no byte offset: \(result.standardError)")
    }
  }

  func testAnalyze_danglingReference_givesTheLineOfTheRecord() throws {
    let result = try run(["analyze", fixtures + "/dangling-reference.json"])
    XCTAssertTrue(result.standardError.contains("(byte 122, line 8, column 5)"), result.standardError)
  }

  func testAnalyze_usageErrors_exitWithOne() throws {
    for arguments in [
      ["analyze"], ["analyze", "x.json", "--max-cycle-length", "0"], ["analyze", "x.json", "--format", "xml"], ["frobnicate"],
    ] {
      let result = try run(arguments)
      XCTAssertEqual(result.status, 1, "\(arguments): \(result.standardError)")
      XCTAssertTrue(result.standardError.contains("Error:") || result.standardError.contains("error:"), result.standardError)
    }
  }

  func testHelp_documentsTheExitCodesAndExitsWithZero() throws {
    let result = try run(["analyze", "--help"])
    XCTAssertEqual(result.status, 0)
    XCTAssertTrue(result.standardOutput.contains("2  retain cycles, leaks or survivors found"), result.standardOutput)
    let root = try run(["--help"])
    XCTAssertEqual(root.status, 0)
    XCTAssertTrue(root.standardOutput.contains("EXIT CODES"))
  }
}
