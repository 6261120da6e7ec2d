import HeapGraph

/// Reads and parses a snapshot file into a graph, turning every problem into an input failure
/// that names the file.
func loadGraph(_ path: String, progress: ProgressPrinter) throws -> ObjectGraph {
  let bytes: [UInt8]
  do {
    bytes = try FileBytes.read(path)
  } catch {
    throw InputFailure(message: error.description)
  }
  progress.report("parsing \(path) (\(bytes.count / 1_000_000) MB)")
  let heap: HeapSnapshot
  do {
    heap = try HeapSnapshot(jsonBytes: bytes)
  } catch {
    throw InputFailure(message: "\(path): \(error.description)")
  }
  progress.report("building the graph of \(heap.objectCount) objects and \(heap.referenceCount) references")
  return ObjectGraph(heap)
}

/// Writes `text` to `path` atomically, or to standard output when `path` is nil.
func emit(_ text: String, to path: String?) throws {
  guard let path else {
    standardOutput.write(text)
    return
  }
  do {
    try FileBytes.writeAtomically(Array(text.utf8), to: path)
  } catch {
    throw InputFailure(message: error.description)
  }
}
