import ArgumentParser
import HeapGraph
import LeakDetector
import ProcessImage

/// `leak-detector capture PID --output FILE`: a heap snapshot of a running process the tool did
/// not start, or of a core file.
struct CaptureCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "capture",
    abstract: "Take a heap snapshot of a running process by its id, or of a core file.",
    discussion: """
      A running process is stopped while its memory is copied (the report says for how long), \
      then goes on as if nothing happened, also when this tool is interrupted or killed. Its \
      live Swift objects are found from their headers in its heap, without a tracker, and read \
      as every capture reads them: their strong references, closure contexts, collections, \
      tasks and Dispatch work, with the roots that hold them (global data, thread stacks and \
      registers). Without a tracker there are no allocation stacks: run the program under \
      `leak-detector run` (sampled in production: --sample-interval) for those.

      Tracing another process needs the permission a debugger needs: the same user (and a \
      kernel ptrace policy that allows it) or root with CAP_SYS_PTRACE; in a container, start it \
      with --cap-add SYS_PTRACE. A core file (the kernel's, or gdb's gcore of a live process) \
      is read with the binaries it names where they were; --binaries says where they are now.

      Every command that takes a snapshot takes a core file too.

      Examples:
        leak-detector capture 4242 --output server.heapsnapshot
        leak-detector analyze server.heapsnapshot
        gcore -o server 4242 && leak-detector analyze server.4242
      """
  )

  @Argument(help: "The id of a running process, or a core file.")
  var target: String

  @Option(help: "Where to write the snapshot (atomically).")
  var output: String

  @Option(
    help: ArgumentHelp("The encoding to write: json or binary (default: json for a .json output, else binary).", valueName: "encoding"))
  var to: HeapSnapshot.FileEncoding?

  @Flag(help: "Read the process's memory even when it runs under leak-detector run (whose agent would take the snapshot, with stacks).")
  var readMemory = false

  @OptionGroup var cores: CoreFileOptions

  func run() throws {
    let encoding = to ?? (output.hasSuffix(".json") ? .json : .binary)
    if let processID = Int32(target), !readMemory {
      var withoutSignal = false
      if let agent = RunningAgent.of(processID: processID, withoutSignal: &withoutSignal) {
        standardError.write(
          "leak-detector: process \(processID) runs under leak-detector run: its agent takes the snapshot, with allocation stacks\n")
        let path = try agent.takeSnapshot()
        try writeFile(try loadSnapshot(path).fileBytes(encoding), to: output)
        return
      }
      if withoutSignal {
        standardError.write(
          "leak-detector: note: process \(processID) runs under leak-detector run without --snapshot-signal: its agent cannot be asked for a snapshot with allocation stacks; reading its memory instead\n"
        )
      }
    }
    let image = try cores.memoryImage(of: target)
    if let pause = image.pauseMilliseconds {
      standardError.write("leak-detector: process \(image.processID) was stopped for \(pause) ms while its memory was copied\n")
    }
    image.install()
    let (snapshot, failure) = image.snapshot(process: image.arguments.first.map { String($0.split(separator: "/").last ?? "") })
    if let failure { throw InputFailure(message: "\(target): the capture failed: \(failure.diagnostic.message)") }
    try writeFile(snapshot.fileBytes(encoding), to: output)
  }
}
