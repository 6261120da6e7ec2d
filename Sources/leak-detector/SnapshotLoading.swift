import HeapGraph

/// Reads and parses a snapshot into a graph, turning every problem into an input failure that
/// names the file (or standard input, for `-`).
func loadGraph(_ path: String, progress: ProgressPrinter) throws -> ObjectGraph {
  let heap = try loadSnapshot(path, progress: progress)
  progress.report("building the graph of \(heap.objectCount) objects and \(heap.referenceCount) references")
  return ObjectGraph(heap)
}

/// Reads and parses a snapshot, from a file or, for `-`, standard input, turning every problem
/// into an input failure that names it.
func loadSnapshot(_ path: String, progress: ProgressPrinter? = nil) throws -> HeapSnapshot {
  let bytes = try readInput(path)
  let name = inputName(path)
  progress?.report("parsing \(name) (\(bytes.count / 1_000_000) MB)")
  do {
    return try HeapSnapshot(jsonBytes: bytes)
  } catch {
    throw InputFailure(message: "\(name): \(error.description)")
  }
}
