import Foundation

/// What `swift package leak-check` was asked: the plugin's own options, `run`'s options before
/// `--`, and `swift test`'s arguments after it.
///
/// SwiftPM hands the plugin every argument written after `leak-check`, and nothing written
/// before it: `swift package leak-check -c release --format sarif -- --filter CartTests` gives
/// `["-c", "release", "--format", "sarif", "--", "--filter", "CartTests"]`, and
/// `swift package -c release leak-check` gives `[]`.
struct LeakCheckRequest {
  /// Where the package keeps its accepted findings, relative to its directory.
  static let defaultBaseline = "Baselines/leaks.json"

  /// The build configurations that `swift test` (and SwiftPM's `-c`) accepts.
  static let configurations = ["debug", "release"]

  /// SwiftPM's own plugin options, which it reads after the verb too and applies to the plugin's
  /// run: they are SwiftPM's, not `run`'s, and the plugin leaves them out. Each with whether it
  /// takes a value.
  static let permissionOptions = [
    "--disable-sandbox": false, "--allow-writing-to-package-directory": false,
    "--allow-writing-to-directory": true, "--allow-network-connections": true,
  ]

  var wantsHelp = false
  /// The configuration the tests build in, from the plugin's `-c`/`--configuration` or from
  /// `swift test`'s arguments; `nil` when neither names one.
  var configuration: String?
  /// Where `swift test` builds the tests, from the plugin's `--scratch-path` or `swift test`'s;
  /// `nil` for `swift test`'s default, the package's `.build`.
  var scratchPath: String?
  /// The baseline named with `--baseline`, which the command that accepts findings names too.
  var namedBaseline: String?
  var runOptions: [String] = []
  /// `swift test`'s arguments after `--`, without the configuration and scratch path.
  var testArguments: [String] = []

  /// Reads `arguments`, the plugin's. Throws when an option lacks its value or two
  /// configurations (or scratch paths) disagree.
  init(arguments: [String], packageDirectory: URL) throws(LeakCheckFailure) {
    let separator = arguments.firstIndex(of: "--")
    var usesDefaultBaseline = true
    var options = arguments[..<(separator ?? arguments.endIndex)].makeIterator()
    while let option = options.next() {
      let (name, inlineValue) = Self.split(option)
      switch name {
      case "-h", "--help": wantsHelp = true
      case "--no-baseline": usesDefaultBaseline = false
      case "-c", "--configuration":
        configuration = try Self.merge(Self.value(of: name, inlineValue, &options), into: configuration, option: "the configuration")
      case "--scratch-path":
        scratchPath = try Self.merge(Self.value(of: name, inlineValue, &options), into: scratchPath, option: "the scratch path")
      case "--baseline":
        let baseline = try Self.value(of: name, inlineValue, &options)
        namedBaseline = baseline
        runOptions += ["--baseline", baseline]
      case _ where Self.permissionOptions[name] != nil:
        if Self.permissionOptions[name] == true && inlineValue == nil { _ = options.next() }
      default: runOptions.append(option)
      }
    }
    if let separator {
      var arguments = arguments[(separator + 1)...].makeIterator()
      while let argument = arguments.next() {
        let (name, inlineValue) = Self.split(argument)
        switch name {
        case "-c", "--configuration":
          configuration = try Self.merge(Self.value(of: name, inlineValue, &arguments), into: configuration, option: "the configuration")
        case "--scratch-path":
          scratchPath = try Self.merge(Self.value(of: name, inlineValue, &arguments), into: scratchPath, option: "the scratch path")
        default: testArguments.append(argument)
        }
      }
    }
    // The plugin runs in the directory `swift package` was started in, `swift test` in the package's.
    scratchPath = scratchPath.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
    if let configuration, !Self.configurations.contains(configuration) {
      throw LeakCheckFailure("-c \(configuration): the configuration is debug or release")
    }
    let hasBaseline = FileManager.default.fileExists(atPath: packageDirectory.appendingPathComponent(Self.defaultBaseline).path)
    if usesDefaultBaseline && namedBaseline == nil && (hasBaseline || runOptions.contains("--update-baseline")) {
      runOptions = ["--baseline", Self.defaultBaseline] + runOptions
    }
  }

  /// The configuration the tests build in: the one named, else `swift test`'s default.
  var testConfiguration: String { configuration ?? "debug" }

  /// `swift test`'s command line: `swift test --configuration release --ignore-lock --filter
  /// CartTests` (without `--configuration` in debug, `swift test`'s default).
  ///
  /// `--ignore-lock`, because the `swift package` that runs the plugin holds the lock on `.build`
  /// until the plugin ends, building nothing meanwhile (``LeakCheck`` says why that is safe).
  func testCommand(swift: String) -> [String] {
    [swift, "test"] + (testConfiguration == "debug" ? [] : ["--configuration", testConfiguration])
      + (scratchPath.map { ["--scratch-path", $0] } ?? [])
      + (testArguments.contains("--ignore-lock") ? [] : ["--ignore-lock"]) + testArguments
  }

  /// `leak-detector`'s arguments: `run OPTIONS -- swift test …`.
  func runArguments(swift: String) -> [String] {
    ["run", "--accept-command", acceptCommand] + runOptions + ["--"] + testCommand(swift: swift)
  }

  /// The command that accepts this run's findings into the baseline, for `run`'s messages:
  /// `swift package leak-check --update-baseline -c release -- --filter CartTests`.
  var acceptCommand: String {
    (["swift package leak-check --update-baseline"] + (namedBaseline.map { ["--baseline", $0] } ?? [])
      + (testConfiguration == "debug" ? [] : ["-c", testConfiguration])
      + (scratchPath.map { ["--scratch-path", $0] } ?? []) + (testArguments.isEmpty ? [] : ["--"] + testArguments))
      .joined(separator: " ")
  }

  /// `--name=value` as `("--name", "value")`; anything else as itself without a value.
  private static func split(_ argument: String) -> (name: String, value: String?) {
    guard argument.hasPrefix("-"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
    return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
  }

  /// The value of option `name`: written after `=`, or the next argument.
  private static func value(
    of name: String, _ inlineValue: String?, _ rest: inout some IteratorProtocol<String>
  ) throws(LeakCheckFailure) -> String {
    if let inlineValue { return inlineValue }
    guard let next = rest.next() else { throw LeakCheckFailure("\(name) needs a value") }
    return next
  }

  /// `value`, unless `existing` is another one: an option given both to the plugin and to
  /// `swift test` must say the same.
  private static func merge(_ value: String, into existing: String?, option: String) throws(LeakCheckFailure) -> String {
    if let existing, existing != value {
      throw LeakCheckFailure("\(option) is given twice, as \(existing) and as \(value); give it once")
    }
    return value
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

    USAGE: swift package leak-check [-c debug|release] [<run options>] [-- <swift test arguments>]

    Builds leak-detector and its agent (release, into the package's scratch path), then runs
    `leak-detector run -- swift test --ignore-lock` in the package's directory. The tests build
    in the package's .build, in debug unless leak-check is given -c release. Each leak names
    the test that made it. Options before -- are leak-detector run's; arguments after -- go to
    swift test. Baselines/leaks.json gates the run when the package has one.

    SwiftPM passes the plugin only what follows leak-check: give the configuration and scratch
    path there (`swift package -c release leak-check` tests in debug).

    OPTIONS:
      -c, --configuration <configuration>
                              Build and run the tests in debug (the default) or release.
      --scratch-path <dir>    Build the tests here instead of in the package's .build.
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
      swift package leak-check -c release
      swift package leak-check -- --filter CartTests
      swift package leak-check --update-baseline
      swift package leak-check --format sarif --output leaks.sarif -c release

    SwiftPM on Linux runs plugins without a sandbox. Where it sandboxes them, add
    --disable-sandbox (the tests build and run), and --allow-writing-to-package-directory to
    write a baseline or report into the package: swift package --disable-sandbox
    --allow-writing-to-package-directory leak-check --update-baseline.
    """
}
