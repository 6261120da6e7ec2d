import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// Every command's bad input, through the built binary: a bad snapshot, baseline, output path or
/// option value exits with status 1 and one message on standard error that names the file (or
/// the option) and the place, and every file is as it was before (nothing replaced, nothing
/// left behind).
final class BadInputTests: XCTestCase {
  /// Where a bad file goes on a command line.
  private enum Slot: Sendable {
    case snapshot, baseline
  }

  /// A kind of bad input file: how to make one, and what the commands say about it.
  private struct BadFile: Sendable {
    var name: String
    /// Makes the bad file for `slot` in `directory` and returns the path that names it.
    var make: @Sendable (_ directory: String, _ slot: Slot) throws -> String
    /// What a command says about it as a snapshot, after `<path>: `.
    var asSnapshot: String
    /// What `gate` says about it as the baseline, after `<path>: `; `nil` when it is no input
    /// error there (a missing baseline is exit status 5).
    var asBaseline: String?
    /// Whether it can be given on standard input (it exists).
    var canBeStandardInput = true
  }

  /// A command line with a bad input in it, and the message that must come back.
  private struct Row {
    var description: String
    var arguments: [String]
    var standardInput: BuiltProgram.Input = .nothing
    /// The whole of standard error after `leak-detector: error: `, or its beginning when
    /// `isPrefix`.
    var message: String
    var isPrefix = false
  }

  private let fixtures = LeakTestSupport.directory(of: #filePath) + "/Fixtures"
  private var seven: String { fixtures + "/fb-seven-nodes.json" }
  private var clean: String { fixtures + "/no-cycles.json" }
  private var root = ""

  override func setUpWithError() throws {
    root = NSTemporaryDirectory() + "bad-input-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(atPath: root)
  }

  private static let baselineSuffix = "; fix it or delete it and run with --update-baseline"

  /// A valid baseline, the one every run that needs a baseline starts with.
  private static let validBaseline = """
    {
      "accepted" : {
        "00000000000000ff" : {
          "kind" : "leak",
          "reason" : "kept to check it is not replaced",
          "summary" : "App.Old"
        }
      },
      "formatVersion" : 1
    }

    """

  // MARK: - The bad files

  private static func write(_ text: String, to path: String) throws -> String {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  private static let badFiles: [BadFile] = [
    BadFile(
      name: "a missing file",
      make: { directory, _ in directory + "/missing.json" },
      asSnapshot: "cannot open: No such file or directory", asBaseline: nil, canBeStandardInput: false),
    BadFile(
      name: "an empty path",
      make: { _, _ in "" },
      asSnapshot: "an empty path names no file", asBaseline: "an empty path names no file", canBeStandardInput: false),
    BadFile(
      name: "an empty file",
      make: { directory, _ in try write("", to: directory + "/empty.json") },
      asSnapshot: #"the file is empty (0 bytes): a heap snapshot is a JSON object with "format": "swift-heap-snapshot""#,
      asBaseline: #"the file is empty (0 bytes): a baseline is a JSON object with "formatVersion" and "accepted""# + baselineSuffix),
    BadFile(
      name: "a directory",
      make: { directory, _ in
        try FileManager.default.createDirectory(atPath: directory + "/folder.json", withIntermediateDirectories: false)
        return directory + "/folder.json"
      },
      asSnapshot: "is a directory, not a file", asBaseline: "is a directory, not a file"),
    BadFile(
      name: "a path whose parent is a file (cannot be opened, even by root)",
      make: { directory, _ in try write("x", to: directory + "/file") + "/snapshot.json" },
      asSnapshot: "cannot open: Not a directory", asBaseline: "cannot open: Not a directory", canBeStandardInput: false),
    BadFile(
      name: "a file that cannot be read",
      make: { _, _ in "/proc/self/mem" },
      asSnapshot: "cannot read: Input/output error", asBaseline: "cannot read: Input/output error", canBeStandardInput: false),
    BadFile(
      name: "malformed JSON",
      make: { directory, slot in
        switch slot {
        case .snapshot:
          try write(
            "{\n  \"format\": \"swift-heap-snapshot\",\n  \"version\": 1\n  \"objects\": [],\n  \"references\": []\n}\n",
            to: directory + "/malformed.json")
        case .baseline:
          try write("{\n  \"accepted\": {}\n  \"formatVersion\": 1\n}\n", to: directory + "/malformed.json")
        }
      },
      asSnapshot: "invalid JSON: expected ',' or '}' after a member, found a string (byte 54, line 4, column 3)",
      asBaseline: "invalid JSON: expected ',' or '}' after a member, found a string (byte 21, line 3, column 3)" + baselineSuffix),
    BadFile(
      name: "a truncated file",
      make: { directory, slot in
        switch slot {
        case .snapshot:
          try write(
            #"{"format": "swift-heap-snapshot", "version": 1, "objects": [{"id": 1, "type": "A"}, {"id": 2, "ty"#,
            to: directory + "/truncated.json")
        case .baseline:
          try write(String(validBaseline.prefix(90)), to: directory + "/truncated.json")
        }
      },
      asSnapshot:
        "objects[1]: the file ends early: expected the closing '\"' of the string that starts at byte 94; was it cut off while being written? (byte 97, line 1, column 98)",
      asBaseline:
        "accepted.00000000000000ff.reason: the file ends early: expected the closing '\"' of the string that starts at byte 86; was it cut off while being written? (byte 90, line 5, column 22)"
        + baselineSuffix),
    BadFile(
      name: "valid JSON of the wrong shape",
      make: { directory, slot in
        switch slot {
        case .snapshot:
          try write(
            #"{"format": "swift-heap-snapshot", "version": 1, "objects": [{"id": "one", "type": "A"}], "references": []}"#,
            to: directory + "/wrong.json")
        case .baseline:
          try write(
            validBaseline.replacingOccurrences(of: "\"kept to check it is not replaced\"", with: "12"), to: directory + "/wrong.json")
        }
      },
      asSnapshot: "objects[0].id: expected an integer, found a string (byte 67, line 1, column 68)",
      asBaseline: "accepted.00000000000000ff.reason: expected a string, found a number (byte 86, line 5, column 18)" + baselineSuffix),
    BadFile(
      name: "binary garbage",
      make: { directory, _ in
        try Data([0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00, 0xFF, 0x00]).write(to: URL(fileURLWithPath: directory + "/garbage.bin"))
        return directory + "/garbage.bin"
      },
      asSnapshot:
        #"expected a JSON object with "format": "swift-heap-snapshot", found byte 0x7F (binary data, not JSON text) (byte 0, line 1, column 1)"#,
      asBaseline:
        #"expected a JSON object with "formatVersion" and "accepted", found byte 0x7F (binary data, not JSON text) (byte 0, line 1, column 1)"#
        + baselineSuffix),
    BadFile(
      name: "a huge file (sparse, over the 4 GiB limit)",
      make: { directory, _ in
        let path = directory + "/huge.json"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        defer { close(descriptor) }
        guard descriptor >= 0, ftruncate(descriptor, off_t(FileBytes.defaultReadLimit) + 1) == 0 else {
          throw XCTSkip("cannot make a sparse file: \(String(cString: strerror(errno)))")
        }
        return path
      },
      asSnapshot: "is too large: more than 4 GiB, the most that is read",
      asBaseline: "is too large: more than 4 GiB, the most that is read"),
  ]

  // MARK: - The table

  /// Every command and input slot, with every bad file in it.
  private func badFileRows(in directory: String) throws -> [Row] {
    let output = directory + "/report.txt"
    let baseline = directory + "/baseline.json"
    var rows: [Row] = []
    for (index, file) in Self.badFiles.enumerated() {
      let snapshotDirectory = directory + "/\(index)-snapshot"
      let baselineDirectory = directory + "/\(index)-baseline"
      for caseDirectory in [snapshotDirectory, baselineDirectory] {
        try FileManager.default.createDirectory(atPath: caseDirectory, withIntermediateDirectories: false)
      }
      let snapshot = try file.make(snapshotDirectory, .snapshot)
      let message = "\(Self.named(snapshot)): \(file.asSnapshot)"
      for (command, arguments) in [
        ("analyze", ["analyze", snapshot, "--output", output]),
        ("analyze --format json", ["analyze", snapshot, "--format", "json", "--output", output]),
        ("gate", ["gate", snapshot, "--baseline", baseline, "--output", output]),
        ("gate, second snapshot", ["gate", clean, snapshot, "--baseline", baseline, "--output", output]),
        ("gate --update-baseline", ["gate", snapshot, "--baseline", baseline, "--update-baseline"]),
        ("diff, earlier snapshot", ["diff", snapshot, clean, "--output", output]),
        ("diff, later snapshot", ["diff", clean, snapshot, "--output", output]),
        ("growth, second snapshot", ["growth", clean, snapshot, clean, "--output", output]),
        ("strip", ["strip", snapshot, "--output", output]),
      ] {
        rows.append(Row(description: "\(command): \(file.name) as the snapshot", arguments: arguments, message: message))
      }
      if file.canBeStandardInput {
        let input = try standardInput(from: snapshot)
        let message = "standard input: \(file.asSnapshot)"
        for (command, arguments) in [
          ("analyze -", ["analyze", "-", "--output", output]),
          ("gate -", ["gate", "-", "--baseline", baseline, "--update-baseline"]),
          ("diff - (later)", ["diff", clean, "-", "--output", output]),
          ("strip -", ["strip", "-", "--output", output]),
        ] {
          rows.append(
            Row(
              description: "\(command): \(file.name) on standard input", arguments: arguments, standardInput: input,
              message: message))
        }
      }
      if let asBaseline = file.asBaseline {
        let badBaseline = try file.make(baselineDirectory, .baseline)
        let message = "\(Self.named(badBaseline)): \(asBaseline)"
        rows.append(
          Row(
            description: "gate: \(file.name) as the baseline",
            arguments: ["gate", seven, "--baseline", badBaseline, "--output", output], message: message))
        rows.append(
          Row(
            description: "gate --update-baseline: \(file.name) as the baseline",
            arguments: ["gate", seven, "--baseline", badBaseline, "--update-baseline"], message: message))
      }
    }
    return rows
  }

  /// How messages name `path`.
  private static func named(_ path: String) -> String {
    path.isEmpty ? "\"\"" : path
  }

  /// The file at `path` on standard input: piped when it is a small file, as `cat file |`
  /// gives it, else opened, as `< file` gives it.
  private func standardInput(from path: String) throws -> BuiltProgram.Input {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    guard attributes[.type] as? FileAttributeType == .typeRegular, (attributes[.size] as? Int ?? 0) < 1 << 20 else {
      return .file(path)
    }
    return .bytes(try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  /// Every command's output path that cannot be written, and every output that would replace
  /// an input.
  private func outputRows(in directory: String) throws -> [Row] {
    let baseline = directory + "/baseline.json"
    var unwritable: [(name: String, path: String, message: String, isPrefix: Bool)] = [
      ("an empty path", "", "an empty path names no file", false)
    ]
    try FileManager.default.createDirectory(atPath: directory + "/out-folder", withIntermediateDirectories: false)
    unwritable.append(("a directory", directory + "/out-folder", "is a directory, not a file", false))
    unwritable.append(
      (
        "a path in a missing directory", directory + "/missing/out.txt",
        "cannot create a file in \(directory)/missing: No such file or directory", false
      ))
    _ = try Self.write("x", to: directory + "/out-file")
    unwritable.append(
      (
        "a path whose parent is a file", directory + "/out-file/out.txt", "cannot create a file in \(directory)/out-file: Not a directory",
        false
      ))
    if geteuid() == 0 {
      // Root writes in any directory whatever its mode; sysfs takes no new files from anyone.
      unwritable.append(("a read-only location", "/sys/leak-detector-report.txt", "cannot create a file in /sys: ", true))
    } else {
      try FileManager.default.createDirectory(atPath: directory + "/read-only", withIntermediateDirectories: false)
      XCTAssertEqual(chmod(directory + "/read-only", 0o555), 0)
      unwritable.append(
        (
          "a read-only location", directory + "/read-only/out.txt", "cannot create a file in \(directory)/read-only: Permission denied",
          false
        ))
      _ = try Self.write(Self.validBaseline, to: directory + "/read-only-file.txt")  // a baseline too, for --update-baseline
      XCTAssertEqual(chmod(directory + "/read-only-file.txt", 0o444), 0)
      unwritable.append(("a read-only file", directory + "/read-only-file.txt", "cannot write: Permission denied", false))
    }
    var rows: [Row] = []
    for (name, path, problem, isPrefix) in unwritable {
      for (command, arguments) in [
        ("analyze", ["analyze", seven, "--output", path]),
        ("gate", ["gate", seven, "--baseline", baseline, "--format", "sarif", "--output", path]),
        ("diff", ["diff", clean, seven, "--output", path]),
        ("growth", ["growth", clean, seven, clean, "--output", path]),
        ("strip", ["strip", seven, "--output", path]),
      ] {
        rows.append(
          Row(
            description: "\(command): \(name) as --output", arguments: arguments, message: "\(Self.named(path)): \(problem)",
            isPrefix: isPrefix))
      }
      // A baseline's missing directory is made for it (GateCommandTests).
      if name == "a path in a missing directory" { continue }
      // The baseline is read first: where it cannot be opened, that is what is said.
      let asBaselineProblem = name == "a path whose parent is a file" ? "cannot open: Not a directory" : problem
      rows.append(
        Row(
          description: "gate --update-baseline: \(name) as the baseline to write",
          arguments: ["gate", seven, "--baseline", path, "--update-baseline"], message: "\(Self.named(path)): \(asBaselineProblem)",
          isPrefix: isPrefix))
    }
    let snapshot = try Self.write(try String(contentsOfFile: seven, encoding: .utf8), to: directory + "/snapshot.json")
    func replacing(_ input: String) -> String {
      "\(input): --output names an input of this command (\(input)); write the report to another file"
    }
    rows += [
      Row(
        description: "analyze: --output is the snapshot", arguments: ["analyze", snapshot, "--output", snapshot],
        message: replacing(snapshot)),
      Row(
        description: "diff: --output is the later snapshot", arguments: ["diff", clean, snapshot, "--output", snapshot],
        message: replacing(snapshot)),
      Row(
        description: "growth: --output is a snapshot", arguments: ["growth", clean, snapshot, clean, "--output", snapshot],
        message: replacing(snapshot)),
      Row(
        description: "gate: --output is the snapshot", arguments: ["gate", snapshot, "--baseline", baseline, "--output", snapshot],
        message: replacing(snapshot)),
      Row(
        description: "gate: --output is the baseline", arguments: ["gate", snapshot, "--baseline", baseline, "--output", baseline],
        message: "\(baseline): --output names an input of this command (\(baseline)); write the report to another file"),
    ]
    return rows
  }

  func testBadFiles_everyCommandAndSlot_exitWithOneNamingTheFileAndThePlace() throws {
    try check(try badFileRows(in: root))
  }

  func testBadOutputs_everyCommand_exitWithOneAndReplaceNothing() throws {
    try check(try outputRows(in: root))
  }

  /// Runs every row in `root` (where `report.txt` and `baseline.json` exist beforehand) and
  /// checks its status, its one-line message, and that no file changed.
  private func check(_ rows: [Row]) throws {
    let report = try Self.write("the previous report\n", to: root + "/report.txt")
    _ = try Self.write(Self.validBaseline, to: root + "/baseline.json")
    XCTAssertGreaterThan(rows.count, 10)
    for row in rows {
      let before = try contents(of: root)
      let result = try BuiltProgram("leak-detector").run(row.arguments, standardInput: row.standardInput)
      let context = "\(row.description)\n  \(row.arguments.joined(separator: " "))\n  \(result.standardError)"
      XCTAssertEqual(result.status, 1, context)
      XCTAssertEqual(result.standardOutput, "", context)
      let expected = "leak-detector: error: \(row.message)"
      if row.isPrefix {
        XCTAssertTrue(result.standardError.hasPrefix(expected), context)
        XCTAssertEqual(result.standardError.filter { $0 == "\n" }.count, 1, "one line: \(context)")
      } else {
        XCTAssertEqual(result.standardError, expected + "\n", context)
      }
      XCTAssertEqual(try contents(of: root), before, "a file changed or was left behind: \(context)")
    }
    XCTAssertEqual(try String(contentsOfFile: report, encoding: .utf8), "the previous report\n")
  }

  /// Every file and directory under `directory`, with the contents of small files and the size
  /// of large ones.
  private func contents(of directory: String) throws -> [String: String] {
    var result: [String: String] = [:]
    let manager = FileManager.default
    for relative in try manager.subpathsOfDirectory(atPath: directory) {
      let path = directory + "/" + relative
      let attributes = try manager.attributesOfItem(atPath: path)
      let size = attributes[.size] as? Int ?? 0
      if attributes[.type] as? FileAttributeType == .typeDirectory {
        result[relative] = "directory"
      } else if size > 1 << 20 {
        result[relative] = "\(size) bytes"
      } else {
        result[relative] = (try? String(contentsOfFile: path, encoding: .isoLatin1)) ?? "unreadable"
      }
    }
    return result
  }

  // MARK: - Option values

  func testBadOptionValues_everyCommand_exitWithOneNamingTheOption() throws {
    let report = try Self.write("the previous report\n", to: root + "/report.txt")
    let baseline = try Self.write(Self.validBaseline, to: root + "/baseline.json")
    // Each with the beginning of ArgumentParser's first line; its usage follows.
    let values: [(arguments: [String], firstLine: String)] = [
      (["--max-cycle-length", "0"], "Error: --max-cycle-length must be between 1 and 10000, not 0."),
      (["--max-cycle-length", "abc"], "Error: The value 'abc' is invalid for '--max-cycle-length <max-cycle-length>'"),
      (["--max-cycles-per-component", "0"], "Error: --max-cycles-per-component must be between 1 and 1000000, not 0."),
      (
        ["--max-cycles-per-component", "abc"],
        "Error: The value 'abc' is invalid for '--max-cycles-per-component <max-cycles-per-component>'"
      ),
      (["--expect-dead-generation", "-3"], "Error: Missing value for '--expect-dead-generation <generation>'"),
      (["--expect-dead-generation=-3"], "Error: --expect-dead-generation must be 0 or more, not -3."),
      (["--expect-dead-generation", "abc"], "Error: The value 'abc' is invalid for '--expect-dead-generation <generation>'"),
      (["--format", "bogus"], "Error: The value 'bogus' is invalid for '--format <format>'. Please provide one of "),
    ]
    var rows: [(arguments: [String], firstLine: String)] = []
    for command in [["analyze", seven], ["gate", seven, "--baseline", baseline], ["diff", clean, seven]] {
      for value in values {
        rows.append((command + value.arguments + ["--output", report], value.firstLine))
      }
    }
    rows += [
      (["strip", seven, "--output"], "Error: Missing value for '--output <output>'"),
      (["strip", seven], "Error: Missing expected argument '--output <output>'"),
      (["gate", seven, "--output", report], "Error: Missing expected argument '--baseline <baseline>'"),
      (
        ["diff", "-", "-", "--output", report],
        "Error: Standard input can be read only once: name '-' as the earlier or the later snapshot, not both."
      ),
      (
        ["gate", "-", "-", "--baseline", baseline, "--output", report],
        "Error: Standard input can be read only once: name '-' as one snapshot at most."
      ),
      (
        ["gate", seven, "--baseline", "-", "--output", report],
        "Error: --baseline must name a file, not standard input: the gate reads it, and --update-baseline writes it."
      ),
    ]
    let before = try contents(of: root)
    for (arguments, firstLine) in rows {
      let result = try BuiltProgram("leak-detector").run(arguments)
      let context = "\(arguments.joined(separator: " "))\n\(result.standardError)"
      XCTAssertEqual(result.status, 1, context)
      XCTAssertEqual(result.standardOutput, "", context)
      XCTAssertTrue(result.standardError.hasPrefix(firstLine), context)
      XCTAssertTrue(result.standardError.contains("\nUsage: leak-detector "), "keeps the usage: \(context)")
    }
    XCTAssertEqual(try contents(of: root), before)
  }

  // MARK: - Permissions

  func testUnreadableFile_asSnapshotOrBaseline_exitsWithOne() throws {
    guard geteuid() != 0 else {
      throw XCTSkip(
        "running as root, which reads a file whatever its mode; a file that cannot be opened is covered by the rows with a path whose parent is a file"
      )
    }
    let unreadable = try Self.write("{}", to: root + "/unreadable.json")
    XCTAssertEqual(chmod(unreadable, 0), 0)
    for arguments in [["analyze", unreadable], ["gate", seven, "--baseline", unreadable, "--update-baseline"]] {
      let result = try BuiltProgram("leak-detector").run(arguments)
      XCTAssertEqual(result.status, 1, result.standardError)
      XCTAssertEqual(result.standardError, "leak-detector: error: \(unreadable): cannot open: Permission denied\n")
    }
  }
}
