import ArgumentParser
import HeapGraph

/// `leak-detector strip SNAPSHOT --output FILE`: a snapshot safe to share.
struct StripCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "strip",
    abstract: "Remove what you may not want to share from a heap snapshot.",
    discussion: """
      Drops the process name and creation time, the program counters of stack frames, the \
      text of dictionary keys in labels (pending["https://…"] becomes pending[…]) and the \
      directories of source files (--drop-file-names drops the files too). Types, labels, \
      ownership, generations and line numbers stay, so analyses give the same results. The \
      stripped snapshot keeps its input's encoding (JSON or binary).
      """
  )

  @Argument(help: "The snapshot to strip; - reads it from standard input.")
  var snapshot: String

  @Option(help: "Where to write the stripped snapshot (atomically); may be the input itself.")
  var output: String

  @Flag(help: "Drop source file names as well as their directories.")
  var dropFileNames = false

  func run() throws {
    let (heap, encoding) = try loadSnapshotFile(snapshot)
    try writeFile(heap.stripped(keepingFileNames: !dropFileNames).withDataRedacted().fileBytes(encoding), to: output)
  }
}
