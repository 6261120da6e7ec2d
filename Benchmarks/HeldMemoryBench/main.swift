// held-memory-bench: what summing what holds the memory (HeapMemory: top retainers, the type
// histogram, leak suspects) costs beside the analysis it sums, in the same process.
//
// usage: held-memory-bench FILE [RUNS]
// Prints one line of JSON per run: the analysis's seconds, HeapMemory's, and their ratio.

import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

/// Seconds on the monotonic clock.
func now() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

let arguments = CommandLine.arguments
guard arguments.count >= 2, let runs = arguments.count > 2 ? Int(arguments[2]) : 1, runs > 0 else {
  _ = "usage: held-memory-bench FILE [RUNS]\n".withCString { write(2, $0, strlen($0)) }
  exit(64)
}
let bytes = try FileBytes.read(arguments[1])
let snapshot = HeapSnapshot.encoding(of: bytes) == .binary ? try HeapSnapshot(binaryBytes: bytes) : try HeapSnapshot(jsonBytes: bytes)
let graph = ObjectGraph(snapshot)
for _ in 0..<runs {
  let start = now()
  let analysis = HeapAnalysis(graph: graph)
  let analysed = now()
  let memory = HeapMemory(analysis: analysis)
  let summed = now()
  let analysisSeconds = analysed - start
  let memorySeconds = summed - analysed
  print(
    "{\"objects\": \(graph.objectCount), \"analysis\": \(analysisSeconds), \"heldMemory\": \(memorySeconds), "
      + "\"ratio\": \(memorySeconds / analysisSeconds), \"retainers\": \(memory.retainers.count)}")
}
