import Foundation

/// What `swift package leak-check` was asked: `run`'s options before `--`, `swift test`'s
/// arguments after it, and the plugin's own `--no-baseline` and `--help`.
struct LeakCheckRequest {
  /// Where the package keeps its accepted findings, relative to its directory.
  static let defaultBaseline = "Baselines/leaks.json"

  var wantsHelp = false
  var runOptions: [String] = []
  var testArguments: [String] = []

  /// `arguments` are the plugin's; `invocation` is the command line of the `swift package` that
  /// runs it, whose build configuration (`swift package -c release leak-check`) the tests get
  /// unless `swift test`'s arguments name one.
  init(arguments: [String], packageDirectory: URL, invocation: [String] = []) {
    let separator = arguments.firstIndex(of: "--")
    var usesDefaultBaseline = true
    for option in arguments[..<(separator ?? arguments.endIndex)] {
      switch option {
      case "-h", "--help": wantsHelp = true
      case "--no-baseline": usesDefaultBaseline = false
      default: runOptions.append(option)
      }
    }
    if let separator { testArguments = Array(arguments[(separator + 1)...]) }
    if Self.configuration(in: testArguments) == nil, let configuration = Self.configuration(in: invocation) {
      testArguments = ["--configuration", configuration] + testArguments
    }
    let namesBaseline = runOptions.contains { $0 == "--baseline" || $0.hasPrefix("--baseline=") }
    let hasBaseline = FileManager.default.fileExists(atPath: packageDirectory.appendingPathComponent(Self.defaultBaseline).path)
    if usesDefaultBaseline && !namesBaseline && (hasBaseline || runOptions.contains("--update-baseline")) {
      runOptions = ["--baseline", Self.defaultBaseline] + runOptions
    }
  }

  /// `leak-detector`'s arguments: `run OPTIONS -- swift test …`. The tests build into the
  /// scratch path SwiftPM gave the plugin, which the `swift package` that runs the plugin keeps
  /// locked while it waits for it (hence `--ignore-lock`: that process builds nothing meanwhile).
  func runArguments(swift: String, scratchPath: URL?) -> [String] {
    var test = [swift, "test"]
    let namesScratchPath = testArguments.contains { $0 == "--scratch-path" || $0.hasPrefix("--scratch-path=") }
    if let scratchPath, !namesScratchPath { test += ["--scratch-path", scratchPath.path, "--ignore-lock"] }
    return ["run", "--accept-command", acceptCommand] + runOptions + ["--"] + test + testArguments
  }

  /// The command that accepts this run's findings into the baseline, for `run`'s messages.
  var acceptCommand: String {
    (["swift package leak-check --update-baseline"] + (testArguments.isEmpty ? [] : ["--"] + testArguments)).joined(separator: " ")
  }

  /// The build configuration `arguments` name (`-c release`, `--configuration=debug`…).
  static func configuration(in arguments: [String]) -> String? {
    for (index, argument) in arguments.enumerated() {
      if argument == "--" { return nil }
      if argument == "-c" || argument == "--configuration" {
        return index + 1 < arguments.count ? arguments[index + 1] : nil
      }
      for prefix in ["-c=", "--configuration="] where argument.hasPrefix(prefix) { return String(argument.dropFirst(prefix.count)) }
    }
    return nil
  }

  /// The command line of this plugin's parent process, the `swift package` that runs it (empty
  /// when it cannot be read).
  static func invocation() -> [String] {
    guard let bytes = FileManager.default.contents(atPath: "/proc/\(getppid())/cmdline") else { return [] }
    return bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
  }

  /// The scratch path of the `swift package` invocation: the plugin's work directory is
  /// `SCRATCH/plugins/NAME/outputs`.
  static func scratchPath(pluginWorkDirectory: URL) -> URL? {
    var directory = pluginWorkDirectory.standardizedFileURL
    while directory.pathComponents.count > 1 {
      if directory.lastPathComponent == "plugins" { return directory.deletingLastPathComponent() }
      directory = directory.deletingLastPathComponent()
    }
    return nil
  }

  /// Whether `run` writes files (a baseline, reports, snapshots), which a sandbox may refuse.
  var writesFiles: Bool {
    runOptions.contains { option in
      ["--update-baseline", "--output", "--report", "--snapshot", "--snapshot-directory"].contains {
        option == $0 || option.hasPrefix($0 + "=")
      }
    }
  }

  /// What `leak-detector run`'s exit status `status` means.
  func meaning(ofStatus status: Int32) -> String {
    switch status {
    case 1:
      "a usage or input error, or no test process was checked (its message is above)"
        + (writesFiles
          ? "; where SwiftPM sandboxes plugins, writing into the package needs "
            + "swift package --allow-writing-to-package-directory (or --disable-sandbox) leak-check" : "")
    case 2: "leaks found (with a baseline: leaks it does not accept)"
    case 4: "no new leaks, but accepted ones are gone: update the baseline with --update-baseline"
    case 5: "the baseline does not exist: create it with --update-baseline"
    default: "the tests' own status (they failed, or a signal ended them)"
    }
  }

  static let help = """
    OVERVIEW: Run this package's tests under leak-detector run and report the Swift objects they leak.

    USAGE: swift package leak-check [<run options>] [-- <swift test arguments>]

    Builds leak-detector and its agent (release, into the package's scratch path), then runs
    `leak-detector run -- swift test` in the package's directory, in the configuration given
    to swift package (`swift package -c release leak-check`) or to swift test (`-- -c release`).
    Each leak names the test that made it. Options before -- are leak-detector run's; arguments
    after -- go to swift test. Baselines/leaks.json gates the run when the package has one.

    OPTIONS:
      --baseline <file>       Gate the leaks against this baseline (default: Baselines/leaks.json
                              when it exists).
      --update-baseline       Write the baseline from the findings (keeping existing reasons).
      --no-baseline           Do not gate against Baselines/leaks.json.
      --format <format>       text, json, sarif, junit, markdown or html.
      --output <file>         Write the report to this file instead of standard output.
      --snapshot <file>       Keep the exit snapshot of each test process.
      --suppressions <file>   A suppression file (repeatable).
      --process <pattern>     The processes to check (default: the test runners).
      --no-stacks             Do not record allocation stacks (faster, no test names).
      The other options of leak-detector run work too (`leak-detector run --help`).

    EXAMPLES:
      swift package leak-check
      swift package leak-check -- --filter CartTests
      swift package leak-check --update-baseline
      swift package leak-check --format sarif --output leaks.sarif -- -c release

    SwiftPM on Linux runs plugins without a sandbox. Where it sandboxes them, add
    --disable-sandbox (the tests build and run), and --allow-writing-to-package-directory to
    write a baseline or report into the package: swift package --disable-sandbox
    --allow-writing-to-package-directory leak-check --update-baseline.
    """
}
