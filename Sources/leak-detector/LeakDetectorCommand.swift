import ArgumentParser
import HeapGraph
import LeakDetectorRun

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@main
struct LeakDetectorCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "leak-detector",
    abstract: "Find retain cycles and leaks in Swift heap snapshots.",
    discussion: """
      A heap snapshot (format "swift-heap-snapshot", version 1) lists objects, the references \
      between them with their ownership, roots and allocation stacks. Tests and processes write \
      them; this tool analyses them offline. Where a command takes a snapshot, - reads it from \
      standard input.

      Bad input (a missing, empty, truncated or malformed file, a directory, an output that \
      cannot be written) exits with 1 and one message naming the file and the place. Outputs \
      are replaced atomically, so a failed run leaves the old file as it was.

      EXIT CODES
      \(ExitStatus.helpTable)
      """,
    version: "leak-detector \(version)",  // main() prints the whole `versionText` (it reads files)
    subcommands: [
      AnalyzeCommand.self, DiffCommand.self, GrowthCommand.self, GateCommand.self, RunCommand.self, CaptureCommand.self, StripCommand.self,
      ConvertCommand.self,
    ]
  )

  /// The tool's version, in `--version` and reports.
  static let version = "0.1.0"

  /// What `--version` prints: the version, then the compiler it was built with and the Swift
  /// runtime it runs on (the one its agent was linked against, from the same toolchain).
  ///
  /// ```text
  /// leak-detector 0.1.0
  /// built with Swift 6.3.1; runtime /opt/swift/usr/lib/swift/linux/libswiftCore.so (build b521f25fdeac)
  /// ```
  static var versionText: String {
    let runtime = SwiftRuntimeLibrary.loaded().map { library in
      "runtime \(library.path)" + (library.buildID.map { " (build \($0.shortDescription))" } ?? "")
    }
    return "leak-detector \(version)\nbuilt with Swift \(SwiftVersion.compiler); \(runtime ?? "the Swift runtime linked in")"
  }

  /// Runs a command and maps its outcome to the documented exit codes (ArgumentParser's own
  /// code for usage errors is 64; this tool uses 1 for every usage or input error).
  static func main() {
    fixMallocMappingThreshold()
    if CommandLine.arguments.dropFirst() == ["--version"] {
      print(versionText)
      Glibc.exit(ExitStatus.success.rawValue)
    }
    do {
      var command = try parseAsRoot()
      try command.run()
    } catch let status as ExitStatus {
      Glibc.exit(status.rawValue)
    } catch let program as ProgramExit {
      Glibc.exit(program.code)
    } catch let failure as InputFailure {
      standardError.write("leak-detector: error: \(failure.message)\n")
      Glibc.exit(ExitStatus.inputError.rawValue)
    } catch {
      if exitCode(for: error) == .success { exit(withError: error) }  // --help, --version
      standardError.write(fullMessage(for: error) + "\n")
      Glibc.exit(ExitStatus.inputError.rawValue)
    }
  }
}
