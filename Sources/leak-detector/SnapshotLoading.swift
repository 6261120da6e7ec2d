import HeapGraph
import ProcessImage

/// Reads and parses a snapshot into a graph of what reports written with `output` may show,
/// turning every problem into an input failure that names the file (or standard input, for `-`).
func loadGraph(_ path: String, progress: ProgressPrinter, for output: OutputOptions, binaryDirectories: [String] = []) throws
  -> ObjectGraph
{
  let heap = output.shareable(try loadSnapshot(path, progress: progress, binaryDirectories: binaryDirectories))
  progress.report("building the graph of \(heap.objectCount) objects and \(heap.referenceCount) references")
  return ObjectGraph(heap)
}

/// Reads and parses a snapshot, from a file or, for `-`, standard input, turning every problem
/// into an input failure that names it.
func loadSnapshot(_ path: String, progress: ProgressPrinter? = nil, binaryDirectories: [String] = []) throws -> HeapSnapshot {
  try loadSnapshotFile(path, progress: progress, binaryDirectories: binaryDirectories).snapshot
}

/// Reads and parses a snapshot in either encoding (told by its first bytes), and says which.
func loadSnapshotFile(_ path: String, progress: ProgressPrinter? = nil, binaryDirectories: [String] = [], shownAs shownName: String? = nil)
  throws -> (snapshot: HeapSnapshot, encoding: HeapSnapshot.FileEncoding)
{
  let name = shownName ?? inputName(path)
  if path != standardInputArgument, ProcessImage.isCoreFile(path) {
    return (try snapshotOfCoreFile(path, binaryDirectories: binaryDirectories, progress: progress), .binary)
  }
  // A file is decoded as it is read, so that its bytes and its columns are never in memory side
  // by side. A JSON file that cannot be read so (its references before its objects, or any
  // problem) is read again whole, as standard input is, so that an error names its place.
  if let input = try openRegularFile(path) {
    switch HeapSnapshot.encoding(of: try peek(4, of: input)) {
    case .binary:
      progress?.report("reading \(name) (\(input.length / 1_000_000) MB)")
      let snapshot: HeapSnapshot
      do {
        snapshot = try HeapSnapshot(binaryInput: input)
      } catch {
        throw InputFailure(message: "\(name): binary snapshot: \(error.description)")
      }
      noteCaptureDiagnostics(of: snapshot, named: name)
      return (snapshot, .binary)
    case .json:
      progress?.report("parsing \(name) (\(input.length / 1_000_000) MB)")
      if let snapshot = try? HeapSnapshot(streamingJSON: input) {
        noteCaptureDiagnostics(of: snapshot, named: name)
        return (snapshot, .json)
      }
    }
  }
  let bytes = try readInput(path)
  let encoding = HeapSnapshot.encoding(of: bytes)
  progress?.report("\(encoding == .json ? "parsing" : "reading") \(name) (\(bytes.count / 1_000_000) MB)")
  let snapshot: HeapSnapshot
  switch encoding {
  case .json:
    do {
      snapshot = try HeapSnapshot(jsonBytes: bytes)
    } catch {
      throw InputFailure(message: "\(name): \(error.description)")
    }
  case .binary:
    do {
      snapshot = try HeapSnapshot(binaryBytes: bytes)
    } catch {
      throw InputFailure(message: "\(name): binary snapshot: \(error.description)")
    }
  }
  noteCaptureDiagnostics(of: snapshot, named: name)
  return (snapshot, encoding)
}

/// Tells on standard error what the capture of a snapshot could not see (its
/// `metadata.diagnostics`), so that a report on an incomplete snapshot says so: the first few,
/// and how many more there are.
///
/// ```text
/// leak-detector: note: heap.json was captured with 2 diagnostics:
///   the capture process was killed by signal 11 (Segmentation fault) while reading nothing yet; captured again
///   MyApp.Legacy has no reflection metadata, or a stored property whose layout it cannot describe; its stored properties are not visible
/// ```
private func noteCaptureDiagnostics(of snapshot: HeapSnapshot, named name: String) {
  let diagnostics = snapshot.metadata.diagnostics
  guard !diagnostics.isEmpty else { return }
  let shown = 5
  var text = "leak-detector: note: \(name) was captured with \(diagnostics.count) diagnostic\(diagnostics.count == 1 ? "" : "s"):\n"
  for diagnostic in diagnostics.prefix(shown) { text += "  \(diagnostic)\n" }
  if diagnostics.count > shown { text += "  … and \(diagnostics.count - shown) more in its metadata.diagnostics\n" }
  standardError.write(text)
}
