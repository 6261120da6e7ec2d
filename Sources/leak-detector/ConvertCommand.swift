import ArgumentParser
import HeapGraph

/// `leak-detector convert SNAPSHOT --output FILE`: the same snapshot in the other encoding.
struct ConvertCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "convert",
    abstract: "Convert a heap snapshot between JSON and the binary encoding.",
    discussion: """
      Every command reads both encodings. JSON (the snapshot format) is the one other tools and \
      people read; the binary encoding holds the same content in about a quarter of the space \
      and is read at about the speed of a copy. Writers that choose write binary from 100,000 \
      objects. Converting there and back gives the same snapshot.

      Examples:
        leak-detector convert big.heapsnapshot --output big.heapsnapshot.json
        leak-detector convert heap.json --to binary --output heap.heapsnapshot
      """
  )

  @Argument(help: "The snapshot to convert; - reads it from standard input.")
  var snapshot: String

  @Option(help: "Where to write the converted snapshot (atomically); may be the input itself.")
  var output: String

  @Option(help: ArgumentHelp("The encoding to write (default: the one the input is not in).", valueName: "encoding"))
  var to: HeapSnapshot.FileEncoding?

  func run() throws {
    let (heap, encoding) = try loadSnapshotFile(snapshot)
    try writeFile(heap.fileBytes(to ?? (encoding == .json ? .binary : .json)), to: output)
  }
}

extension HeapSnapshot.FileEncoding: ExpressibleByArgument {}
