import ArgumentParser
import HeapGraph

/// The options every analysing command shares (`analyze`, `gate`, `diff`), so that they find
/// the same cycles, leaks and survivors in the same snapshot.
struct AnalysisOptions: ParsableArguments {
  @Option(help: "The longest cycle to report, in objects (closure contexts and boxes count).")
  var maxCycleLength: Int = CycleFinder.Configuration.defaultMaxCycleLength

  @Option(help: "How many cycles to list per strongly connected component; the rest are counted.")
  var maxCyclesPerComponent: Int = CycleFinder.Configuration.defaultMaxCyclesPerComponent

  @Option(
    help: ArgumentHelp(
      "Objects of this tracker generation or later should be gone: report those still reachable from a root.",
      valueName: "generation"))
  var expectDeadGeneration: Int?

  func validate() throws {
    guard (1...10_000).contains(maxCycleLength) else {
      throw ValidationError("--max-cycle-length must be between 1 and 10000, not \(maxCycleLength).")
    }
    guard (1...1_000_000).contains(maxCyclesPerComponent) else {
      throw ValidationError("--max-cycles-per-component must be between 1 and 1000000, not \(maxCyclesPerComponent).")
    }
    if let expectDeadGeneration, expectDeadGeneration < 0 {
      throw ValidationError("--expect-dead-generation must be 0 or more, not \(expectDeadGeneration).")
    }
  }

  /// The options as the core takes them.
  var heapAnalysisOptions: HeapAnalysis.Options {
    HeapAnalysis.Options(
      cycles: .init(maxCycleLength: maxCycleLength, maxCyclesPerComponent: maxCyclesPerComponent),
      expectedDead: expectDeadGeneration.map { .generation(atLeast: $0) })
  }

  /// Reads, parses and analyses the snapshot at `path` (`-`: standard input) as a heap of the
  /// package whose code is `ownCode`, for reports written with `output`, reporting progress.
  /// A core file's binaries are looked for in `binaryDirectories` first. With
  /// `summarizesHeldMemory`, the reports will say what holds the memory.
  func analyze(
    _ path: String, ownCode: OwnCode, progress: ProgressPrinter, for output: OutputOptions, binaryDirectories: [String] = [],
    summarizesHeldMemory: Bool = false
  ) throws -> HeapAnalysis {
    let graph = try loadGraph(path, progress: progress, for: output, binaryDirectories: binaryDirectories)
    var options = heapAnalysisOptions
    options.ownCode = ownCode
    options.summarizesHeldMemory = summarizesHeldMemory
    return HeapAnalysis(graph: graph, options: options, progress: { progress.report($0) })
  }
}

extension ReportSettingNames {
  /// The command line's flags for the settings.
  static let commandLine = ReportSettingNames(
    maxCycleLength: "--max-cycle-length", maxCyclesPerComponent: "--max-cycles-per-component", allCycles: "--all-cycles")
}
