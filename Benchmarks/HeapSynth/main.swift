// heap-synth: writes a synthetic heap snapshot for benchmarking `leak-detector analyze`.
//
// The heap (LeakBenchmarkSupport's SyntheticHeap) is built so that its cycles are known
// exactly; a manifest lists every planted cycle by object ids, for checking the report.

import HeapGraph
import LeakBenchmarkSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Bad usage: says what is wrong and exits with 64 (EX_USAGE), never a crash.
func usageError(_ message: String) -> Never {
  let text =
    "heap-synth: \(message)\nusage: heap-synth [--objects N] [--references N] [--cycles N] "
    + "[--dense-components N] [--dense-size N] [--seed N] [--output FILE] [--manifest FILE]\n"
  _ = text.withCString { write(2, $0, strlen($0)) }
  exit(64)
}

func number<T: FixedWidthInteger>(_ value: String, for flag: String) -> T {
  guard let number = T(value), number >= 0 else { usageError("\(flag) needs a non-negative integer, not '\(value)'") }
  return number
}

struct Options {
  var objects = 1_000_000
  var references = 3_000_000
  var cycles = 10_000
  var denseComponents = 4
  var denseSize = 12
  var seed: UInt64 = 42
  var output = "heap.json"
  var manifest: String?

  init(arguments: [String]) {
    var iterator = arguments.dropFirst().makeIterator()
    while let flag = iterator.next() {
      guard let value = iterator.next() else { usageError("\(flag) needs a value") }
      switch flag {
      case "--objects": objects = number(value, for: flag)
      case "--references": references = number(value, for: flag)
      case "--cycles": cycles = number(value, for: flag)
      case "--dense-components": denseComponents = number(value, for: flag)
      case "--dense-size": denseSize = number(value, for: flag)
      case "--seed": seed = number(value, for: flag)
      case "--output": output = value
      case "--manifest": manifest = value
      default: usageError("unknown option \(flag)")
      }
    }
  }
}

func synthesize(_ options: Options) throws {
  let heap = SyntheticHeap(
    objects: options.objects, references: options.references, cycles: options.cycles,
    denseComponents: options.denseComponents, denseSize: options.denseSize, seed: options.seed, tool: "heap-synth")
  try FileBytes.writeAtomically(heap.snapshot.jsonBytes(), to: options.output)
  if let manifest = options.manifest {
    var text =
      "{\"objects\": \(options.objects), \"references\": \(heap.referenceCount), \"denseObjects\": \(heap.denseObjectCount), \"plantedCycles\": [\n"
    text += heap.plantedCycles.map { "[" + $0.map(String.init).joined(separator: ",") + "]" }.joined(separator: ",\n")
    text += "\n]}\n"
    try FileBytes.writeAtomically(Array(text.utf8), to: manifest)
  }
  print(
    "heap-synth: wrote \(options.objects) objects, \(heap.referenceCount) references, \(heap.plantedCycles.count) planted cycles, \(options.denseComponents) dense components to \(options.output)"
  )
}

try synthesize(Options(arguments: CommandLine.arguments))
