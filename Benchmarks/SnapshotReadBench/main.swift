// snapshot-read-bench: how long reading a snapshot file takes, as `leak-detector` reads it
// (decoded as the file is read), apart from the analysis. Benchmarks/scale.py times it against
// Python's json.load of the same file.
//
// usage: snapshot-read-bench FILE [RUNS]
// Prints one line of JSON per run: {"seconds": …, "objects": …, "references": …}.

@_spi(Internals) import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

/// Seconds on the monotonic clock.
func now() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Reads `path` as the command-line tool does: decoded as the file is read, or, for a JSON file
/// that cannot be read so, read whole.
func read(_ path: String) throws -> HeapSnapshot {
  if let input = try FileInput(regularFileAt: path) {
    if HeapSnapshot.encoding(of: try input.peek(4)) == .binary { return try HeapSnapshot(binaryInput: input) }
    if let snapshot = try? HeapSnapshot.readStreamingJSON(input) { return snapshot }
  }
  let bytes = try FileBytes.read(path)
  return HeapSnapshot.encoding(of: bytes) == .binary ? try HeapSnapshot(binaryBytes: bytes) : try HeapSnapshot(jsonBytes: bytes)
}

let arguments = CommandLine.arguments
guard arguments.count >= 2, let runs = arguments.count > 2 ? Int(arguments[2]) : 1, runs > 0 else {
  _ = "usage: snapshot-read-bench FILE [RUNS]\n".withCString { write(2, $0, strlen($0)) }
  exit(64)
}
for _ in 0..<runs {
  let start = now()
  let snapshot = try read(arguments[1])
  let seconds = now() - start
  print("{\"seconds\": \(seconds), \"objects\": \(snapshot.objectCount), \"references\": \(snapshot.referenceCount)}")
}
