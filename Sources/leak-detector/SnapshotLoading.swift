import HeapGraph

/// Reads and parses a snapshot file into a graph, turning every problem into an input failure
/// that names the file.
func loadGraph(_ path: String, progress: ProgressPrinter) throws -> ObjectGraph {
  let heap = try loadSnapshot(path, progress: progress)
  progress.report("building the graph of \(heap.objectCount) objects and \(heap.referenceCount) references")
  return ObjectGraph(heap)
}

/// Reads and parses a snapshot file, turning every problem into an input failure that names the
/// file.
func loadSnapshot(_ path: String, progress: ProgressPrinter? = nil) throws -> HeapSnapshot {
  let bytes: [UInt8]
  do {
    bytes = try FileBytes.read(path)
  } catch {
    throw InputFailure(message: error.description)
  }
  progress?.report("parsing \(path) (\(bytes.count / 1_000_000) MB)")
  do {
    return try HeapSnapshot(jsonBytes: bytes)
  } catch {
    throw InputFailure(message: "\(path): \(error.description)")
  }
}
