import ArgumentParser
import HeapGraph
import LeakDetectorRun

#if canImport(Glibc)
  import Glibc
#endif

/// `leak-detector run -- PROGRAM [ARGS...]`: a leak check of any Swift program or test suite,
/// with no change to its code.
struct RunCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run",
    abstract: "Run a program and report the Swift objects it leaked when it exits.",
    discussion: """
      Starts PROGRAM with this package's agent loader (libLeakDetectorPreload.so, next to \
      leak-detector) in LD_PRELOAD. In each process whose executable matches --process (by \
      default PROGRAM itself, or the test binaries for `swift test`), it loads the agent \
      (libLeakDetectorAgent.so, beside it), which records every Swift object \
      allocated, with its allocation stack, and when the process exits captures the live objects, \
      their references and the roots that hold them: global and static data, thread stacks, \
      thread-local storage, and reference counts that show a holder outside the Swift heap. An \
      object no root reaches has leaked; leaks are grouped by their entry (a retain cycle, or an \
      object no other leaked object holds), with allocation sites and, in test processes, the \
      test that allocated them. Standard streams pass through.

      Ctrl-C stops the program as it would without the command; so does an interrupt or a \
      termination request sent to the command alone, which is passed on. The agent captures a \
      program that such a signal ends, and the report follows. The text report is always \
      printed (on standard error when standard output carries --format json, sarif, junit, \
      markdown or html); --format json writes the run report: the processes with their capture \
      times and diagnostics, every leak group, the suppressed groups with their rules, and the \
      gate's outcome with --baseline.

      --profile FILE writes each checked process's heap profile when it exits, in pprof's format \
      (for go tool pprof, Pyroscope, Parca), laid out as Go's /debug/pprof/heap: the snapshot's \
      objects and bytes by type and allocation stack (with --sample-interval, the sampled \
      objects scaled as Go scales them, and every sampled allocation as alloc_*); each signal or \
      interval snapshot then gets one beside it (PROGRAM-PID-N.pb.gz).

      EXIT CODES
        N  the program's own status when it is not 0 (128 + the signal when it was killed)
        0  no leaks (with --baseline: no new ones)
        1  usage or input error, or no process was checked (or the agent refused each), or a
           process to check ended before it exited (a crash) and nothing else failed
        2  leaks found (with --baseline: leaks the baseline does not accept)
        4  with --baseline: no new leaks, but accepted ones are gone
        5  with --baseline: the baseline does not exist

      EXAMPLES
        leak-detector run -- .build/debug/MyServer --port 8080
        leak-detector run -- swift test
        leak-detector run --baseline Baselines/leaks.json -- swift test --filter FeedTests
        leak-detector run --snapshot-signal USR2 -- .build/release/MyServer
        leak-detector run --profile heap.pb.gz --snapshot-interval 60 -- .build/release/MyServer
      """
  )

  @Flag(help: "Do not record allocation stacks (faster; leaks are reported without allocation sites and tests).")
  var noStacks = false

  @Option(
    name: .customLong("process"),
    help: ArgumentHelp(
      "Check the processes whose executable name matches this shell pattern (repeatable; default: PROGRAM's name, or *.xctest for `swift test`).",
      valueName: "pattern"))
  var processPatterns: [String] = []

  @Option(
    help: ArgumentHelp(
      "Keep the exit snapshot at this path (numbered when several processes are checked): JSON, or binary from 100,000 objects.",
      valueName: "path"))
  var snapshot: String?

  @Option(help: ArgumentHelp("Write the exit snapshot in this encoding instead of choosing by size.", valueName: "encoding"))
  var snapshotEncoding: HeapSnapshot.FileEncoding?

  @Option(
    help: ArgumentHelp(
      "Write the heap profile (pprof) of each checked process at exit to this path (numbered as --snapshot is), and one beside each signal and interval snapshot.",
      valueName: "path"))
  var profile: String?

  @Option(
    help: ArgumentHelp("On this signal (USR2, SIGUSR1, 12…), each checked process writes a snapshot and runs on.", valueName: "signal"))
  var snapshotSignal: String?

  @Option(help: ArgumentHelp("Where signal and interval snapshots are written (default: the current directory).", valueName: "directory"))
  var snapshotDirectory: String = "."

  @Option(help: ArgumentHelp("Every this many seconds, each checked process writes a snapshot and runs on.", valueName: "seconds"))
  var snapshotInterval: Double?

  @Option(
    help: ArgumentHelp(
      "Track only a sample of the allocations, about one in every this many bytes (as Go's heap profiler; 524288 is its rate), each with its stack: a cost low enough for production, for profiles and growth; leaks are then found among the sampled objects only.",
      valueName: "bytes"))
  var sampleInterval: Int?

  @Flag(
    help:
      "When the program ends, report what grew in every step over each process's signal and interval snapshots (at least three), as `growth` does."
  )
  var growth = false

  @Flag(
    name: .customLong(String(RunReport.listTestCodeLeaksOption.dropFirst(2))),
    help:
      "List the leaks through test code (a test target's type or a closure written in a test in the entry) in the text report after the library code's; by default they are only counted when the library code leaks too."
  )
  var listsTestCodeLeaks = false

  @Option(help: ArgumentHelp("A suppression file (repeatable): lines like `type MyApp.Cache*  # why`.", valueName: "file"))
  var suppressions: [String] = []

  @Flag(help: "Do not apply the default suppressions of runtime and test-framework objects.")
  var noDefaultSuppressions = false

  @Option(help: ArgumentHelp("Gate the leaks against this baseline of accepted findings, as `gate` does.", valueName: "file"))
  var baseline: String?

  /// How messages tell to accept the findings into the baseline, when `run` is started by
  /// another command (`swift package leak-check --update-baseline`).
  @Option(help: .hidden)
  var acceptCommand: String?

  @OptionGroup var analysis: AnalysisOptions

  @OptionGroup var gating: GateOptions

  @Argument(parsing: .postTerminator, help: "The program to run and its arguments, after --.")
  var command: [String] = []

  func validate() throws {
    guard !command.isEmpty else { throw ValidationError("Name the program to run after --, as in: leak-detector run -- ./MyApp") }
    if gating.updateBaseline && baseline == nil { throw ValidationError("--update-baseline needs --baseline FILE.") }
    if let snapshotSignal, Self.signalNumber(snapshotSignal) == nil {
      throw ValidationError("--snapshot-signal: '\(snapshotSignal)' is not a signal; use a name such as USR2 or a number.")
    }
    if let snapshotInterval, !(snapshotInterval >= 0.05 && snapshotInterval <= 86_400) {
      throw ValidationError("--snapshot-interval must be between 0.05 and 86400 seconds, not \(snapshotInterval).")
    }
    if let sampleInterval, !(1...(1 << 40)).contains(sampleInterval) {
      throw ValidationError("--sample-interval must be between 1 and 2^40 bytes, not \(sampleInterval).")
    }
    if growth && snapshotInterval == nil && snapshotSignal == nil {
      throw ValidationError(
        "--growth compares the snapshots taken while the program runs: add --snapshot-interval SECONDS or --snapshot-signal SIGNAL.")
    }
  }

  func run() throws {
    let (agent, loader) = try Self.agentLibraries()
    let rules = try loadSuppressions()
    let graphviz = try gating.diagrams.graphviz()
    let gate = try baseline.map { path in
      try gating.gate(
        baseline: path,
        acceptCommand: acceptCommand ?? "leak-detector run --baseline \(path) --update-baseline -- \(command.joined(separator: " "))")
    }
    _ = try gate?.read()  // a malformed baseline fails before the program runs
    try checkDestinations()
    let directory = try RunDirectory.claim()
    defer { directory.release() }

    let ending = try ProgramRun.run(
      command, environment: programEnvironment(agent: agent, loader: loader, runDirectory: directory.path), forwarding: forwardedSignals)
    let captures = try directory.exitSnapshots()
    let refusals = directory.refusals()
    let endedEarly = directory.endedEarly()
    let programStatus = status(of: ending, captured: !captures.isEmpty || !endedEarly.isEmpty)
    guard !captures.isEmpty || !endedEarly.isEmpty else {
      if programStatus != 0 { throw ProgramExit(code: programStatus) }
      if !refusals.isEmpty {
        for refusal in refusals { standardError.write("leak-detector: error: \(refusal.message)\n") }
        throw ExitStatus.inputError
      }
      throw InputFailure(
        message:
          "no process matched --process \(checkedProcessPatterns.joined(separator: ", ")) and exited normally, so nothing was checked; "
          + "name the Swift processes to check with --process")
    }
    if let profile { writeExitProfiles(of: captures.map(\.processID), runDirectory: directory.path, to: profile) }
    var report = RunReport(analyses: try analyses(of: captures.map(\.snapshot)), suppressions: rules)
    report.refusals = refusals
    report.endedEarly = endedEarly
    for (index, capture) in captures.enumerated() {
      report.processes[index].processID = capture.processID
      report.processes[index].captureDuration = capture.duration
    }
    var status = try gate.map { try self.gate(report, with: $0) } ?? emit(report, graphviz: graphviz)
    if growth, try reportGrowth(of: report.processes) && status == .success { status = .found }
    if programStatus != 0 { throw ProgramExit(code: programStatus) }
    if status != .success { throw status }
    // A process whose leaks are unknown is not a clean run, whatever the program's status.
    if !report.endedEarlyOnTheirOwn.isEmpty { throw ExitStatus.inputError }
  }

  /// Fails before the program runs when a file the run writes would have no directory to go to
  /// (the snapshots, profiles and reports), rather than after a long program has run.
  private func checkDestinations() throws(InputFailure) {
    let files =
      [("--snapshot", snapshot), ("--profile", profile), ("--output", gating.output.output)]
      + gating.reports.map { ("--report", Optional($0.path)) }
    for case (let option, let path?) in files { try checkWritableParent(of: path, for: option) }
    if snapshotSignal != nil || snapshotInterval != nil {
      try checkWritableDirectory(snapshotDirectory, of: snapshotDirectory, for: "--snapshot-directory")
    }
  }

  /// The processes the agent checks: `--process`, or the defaults for the command.
  private var checkedProcessPatterns: [String] {
    processPatterns.isEmpty ? Self.defaultProcessPatterns(for: command) : processPatterns
  }

  /// The snapshot signal's number, if one is asked for.
  private var snapshotSignalNumber: Int32? { snapshotSignal.flatMap(Self.signalNumber) }

  /// The signals sent to this process that are passed on to the program: interrupts,
  /// termination requests and the snapshot signal.
  private var forwardedSignals: [Int32] {
    [SIGINT, SIGQUIT, SIGTERM, SIGHUP] + (snapshotSignalNumber.map { [$0] } ?? [])
  }

  /// What the program's environment adds: the agent's loader preloaded, the agent it loads, and
  /// the settings.
  private func programEnvironment(agent: String, loader: String, runDirectory: String) -> [String: String] {
    let settings = RunProtocol.Settings(
      runDirectory: runDirectory, processPatterns: checkedProcessPatterns, recordsStacks: !noStacks,
      snapshotDirectory: snapshotDirectory, snapshotSignal: snapshotSignalNumber, snapshotInterval: snapshotInterval,
      sampleInterval: sampleInterval, writesProfiles: profile != nil)
    var environment = settings.environment
    environment[RunProtocol.Variable.agentLibrary.rawValue] = agent
    // The agent keeps its per-thread state in static TLS (the allocation path reads it with no
    // call), and a library loaded after start-up finds room there only in glibc's surplus, 512
    // bytes by default: the surplus is raised for the program's processes (a setting of the
    // program's own, after it, wins).
    environment["GLIBC_TUNABLES"] =
      "glibc.rtld.optional_static_tls=8192" + (getenv("GLIBC_TUNABLES").map { ":" + String(cString: $0) } ?? "")
    environment["LD_PRELOAD"] = loader + (getenv("LD_PRELOAD").map { ":" + String(cString: $0) } ?? "")
    return environment
  }

  /// The program's own exit status (128 + the signal when it was killed, which is said on
  /// standard error, with why nothing was checked when no process left an exit snapshot: one
  /// that a signal kills takes none, unless the agent caught a termination request first).
  private func status(of ending: ProgramRun.Ending, captured: Bool) -> Int32 {
    switch ending {
    case .exited(let code):
      return code
    case .killed(let number, let core):
      standardError.write(
        "leak-detector: \(command[0]) was killed by signal \(number) (\(String(cString: strsignal(number))))\(core ? ", core dumped" : "")"
          + (captured ? "\n" : "; a process killed before it exits takes no exit snapshot\n"))
      return 128 + number
    }
  }

  /// Each exit snapshot analysed, with its process and whether that runs tests; with
  /// `--snapshot`, each is kept first.
  private func analyses(of captures: [HeapSnapshot]) throws -> [(process: String, isTestProcess: Bool, analysis: HeapAnalysis)] {
    // The agent scanned every root region: a snapshot without roots has leaked everything.
    var options = analysis.heapAnalysisOptions
    options.rootsAreComplete = true
    // What XCTest keeps for the whole run never hides a cycle a test made, suppressed or not.
    options.frameworkTypes = .standard
    // The program's own code, which reports point at first: the package `run` is started in.
    options.ownCode = gating.sourceRoot.ownCode
    var analyses: [(process: String, isTestProcess: Bool, analysis: HeapAnalysis)] = []
    for (index, capture) in captures.enumerated() {
      if let snapshot { try writeFile(capture.fileBytes(snapshotEncoding), to: Self.numbered(snapshot, index, of: captures.count)) }
      let process = capture.metadata.process ?? "process \(index + 1)"
      let program = capture.metadata.arguments?.first.map { String($0.split(separator: "/").last ?? "") }
      let isTestProcess = program.map(SwiftTestProcesses.isRunner) ?? false
      analyses.append((process, isTestProcess, HeapAnalysis(graph: ObjectGraph(gating.output.shareable(capture)), options: options)))
    }
    return analyses
  }

  /// Gates the report's findings against the baseline (the text report for people first, then
  /// the gate's report as `gate` writes it, or the JSON run report with the gate's outcome in
  /// it), or writes the baseline from them after the text report.
  private func gate(_ report: RunReport, with gate: BaselineGate) throws -> ExitStatus {
    if gating.updateBaseline {
      show(report, onStandardError: false)
      try gate.update(with: report.findings)
      return .success
    }
    show(report, onStandardError: gating.output.output == nil)
    return try gate.gate(report.findings, uncheckedProcesses: report.uncheckedProcesses) { outcome, status in
      report.renderJSON(exitStatus: status.rawValue, gate: outcome)
    }
  }

  /// Writes the report in its format (the CI formats with every leak as a new finding) and in
  /// each `--report` format, and the text report for people as well when that is another format
  /// or goes to a file; returns
  /// ``ExitStatus/found`` when there are leaks.
  private func emit(_ report: RunReport, graphviz: ((String) -> String?)?) throws -> ExitStatus {
    let output = gating.output
    let status = report.hasLeaks ? ExitStatus.found : .success
    var asGate = GateOutcome(findings: report.findings, baseline: Baseline())
    asGate.uncheckedProcesses = report.uncheckedProcesses
    let text = report.reportText(names: output.names, listsTestCodeLeaks: listsTestCodeLeaks)
    func rendered(_ format: BaselineGate.Format) -> String {
      switch format {
      case .text: text.description
      case .json: report.renderJSON(exitStatus: status.rawValue)
      case .sarif: asGate.renderSARIF(toolVersion: LeakDetectorCommand.version, sourceRoot: gating.sourceRoot.resolved)
      case .junit: asGate.renderJUnit()
      case .markdown: asGate.renderMarkdown(names: output.names)
      case .html: report.renderHTML(command: command.joined(separator: " "), graphviz: graphviz)
      }
    }
    try output.emit(gating.format == .text ? output.text(text) : rendered(gating.format))
    for destination in gating.reports { try writeFile(rendered(destination.format), to: destination.path) }
    if gating.format != .text || output.output != nil { show(report, onStandardError: output.output == nil) }
    return status
  }

  /// Writes the text report for the person running the command: on standard output, or on
  /// standard error when standard output carries another report; coloured as that stream allows.
  private func show(_ report: RunReport, onStandardError: Bool) {
    let output = gating.output
    let text = report.reportText(names: output.names, listsTestCodeLeaks: listsTestCodeLeaks)
    let stream = onStandardError ? standardError : standardOutput
    stream.write(output.usesColor(forTerminal: isatty(stream.descriptor) == 1) ? ReportColoring.colored(text) : text.description)
  }

  /// The suppression rules: the defaults unless turned off, then each file's.
  private func loadSuppressions() throws -> Suppressions {
    var rules = noDefaultSuppressions ? Suppressions() : Suppressions.standard
    for path in suppressions {
      let text = String(decoding: try readFile(path), as: UTF8.self)
      do {
        rules = rules + (try Suppressions(parsing: text, name: path))
      } catch {
        throw InputFailure(message: "\(path): \(error.description)")
      }
    }
    return rules
  }

  /// The agent library: `LEAK_DETECTOR_AGENT`, or the one next to this executable (a build
  /// folder), or the one `Scripts/install` puts in `PREFIX/lib/leak-detector/` for
  /// `PREFIX/bin/leak-detector`; and its loader, beside it. Only the loader is preloaded in every
  /// process the program starts; it loads the agent in the processes to check.
  static func agentLibraries() throws(InputFailure) -> (agent: String, loader: String) {
    let agent: String
    if let configured = getenv("LEAK_DETECTOR_AGENT") {
      agent = String(cString: configured)
    } else {
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
      let executable = length > 0 ? String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
      let directory = String(executable[..<(executable.lastIndex(of: "/") ?? executable.startIndex)])
      let candidates = [directory + "/libLeakDetectorAgent.so", directory + "/../lib/leak-detector/libLeakDetectorAgent.so"]
      guard let found = candidates.first(where: { access($0, R_OK) == 0 }) else {
        throw InputFailure(
          message: "\(candidates[0]): the agent library is missing; build it with `swift build --product LeakDetectorAgent` "
            + "(or set LEAK_DETECTOR_AGENT to its path)")
      }
      agent = found
    }
    let loader =
      String(agent[..<(agent.lastIndex(of: "/").map { agent.index(after: $0) } ?? agent.startIndex)]) + "libLeakDetectorPreload.so"
    guard access(loader, R_OK) == 0 else {
      throw InputFailure(
        message: "\(loader): the agent's loader is missing beside the agent; build it with "
          + "`swift build --product LeakDetectorPreload`")
    }
    return (agent, loader)
  }

  /// The processes checked when `--process` is not given: the test runners for `swift test`,
  /// otherwise the program itself.
  static func defaultProcessPatterns(for command: [String]) -> [String] {
    if SwiftTestProcesses.isSwiftTest(command) { return SwiftTestProcesses.runnerPatterns }
    return [command[0].split(separator: "/").last.map(String.init) ?? command[0]]
  }

  /// `path` for the only snapshot, else with `-2`, `-3`… before its extension from the second on.
  static func numbered(_ path: String, _ index: Int, of count: Int) -> String {
    guard count > 1, index > 0 else { return path }
    let name = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
    guard let dot = path[name...].firstIndex(of: ".") else { return path + "-\(index + 1)" }
    return path[..<dot] + "-\(index + 1)" + path[dot...]
  }

  /// The number of a signal named `USR2`, `SIGUSR2` or `12`.
  static func signalNumber(_ name: String) -> Int32? {
    if let number = Int32(name) { return (1..<65).contains(number) ? number : nil }
    let bare = name.uppercased().hasPrefix("SIG") ? String(name.uppercased().dropFirst(3)) : name.uppercased()
    let known: [String: Int32] = [
      "HUP": SIGHUP, "INT": SIGINT, "QUIT": SIGQUIT, "USR1": SIGUSR1, "USR2": SIGUSR2, "TERM": SIGTERM, "WINCH": SIGWINCH,
      "PROF": SIGPROF, "URG": SIGURG, "PWR": SIGPWR,
    ]
    return known[bare]
  }
}

/// The program's own exit status, passed through.
struct ProgramExit: Error {
  var code: Int32
}
