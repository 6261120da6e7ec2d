import ArgumentParser
import GzipCompression
import HeapGraph

/// `leak-detector convert SNAPSHOT --output FILE`: the same snapshot in the other encoding, or
/// (`--to pprof`) the heap profile of its objects.
struct ConvertCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "convert",
    abstract: "Convert a heap snapshot between JSON and the binary encoding, or into a pprof heap profile.",
    discussion: """
      Every command reads both encodings. JSON (the snapshot format) is the one other tools and \
      people read; the binary encoding holds the same content in about a quarter of the space \
      and is read at about the speed of a copy. Writers that choose write binary from 100,000 \
      objects. Converting there and back gives the same snapshot.

      --to pprof writes the heap profile of the snapshot's objects in pprof's format (gzipped), \
      laid out as Go's /debug/pprof/heap, for go tool pprof, Pyroscope and Parca: the objects by \
      allocation stack, labelled with their type (object=TYPE). A snapshot holds only what is \
      alive, so alloc_objects and alloc_space equal inuse_objects and inuse_space; objects \
      without an allocation stack are under one location, (no stack recorded).

      Examples:
        leak-detector convert big.heapsnapshot --output big.heapsnapshot.json
        leak-detector convert heap.json --to binary --output heap.heapsnapshot
        leak-detector convert heap.json --to pprof --output heap.pb.gz && go tool pprof -top heap.pb.gz
      """
  )

  @Argument(help: "The snapshot to convert; - reads it from standard input.")
  var snapshot: String

  @Option(help: "Where to write the converted snapshot (atomically); may be the input itself.")
  var output: String

  @Option(
    help: ArgumentHelp(
      "What to write: json or binary (default: the encoding the input is not in), or pprof (a heap profile).", valueName: "format"))
  var to: ConvertFormat?

  @OptionGroup var cores: CoreFileOptions

  func run() throws {
    let (heap, encoding) = try loadSnapshotFile(snapshot, binaryDirectories: cores.binaryDirectories)
    if to == .pprof {
      try writeFile(Gzip.compress(HeapProfile(snapshot: heap).pprofProfile.serializedBytes()), to: output)
    } else {
      try writeFile(heap.fileBytes(to?.snapshotEncoding ?? (encoding == .json ? .binary : .json)), to: output)
    }
  }
}

extension HeapSnapshot.FileEncoding: ExpressibleByArgument {}
