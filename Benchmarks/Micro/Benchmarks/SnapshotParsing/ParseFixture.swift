/// What one parse benchmark works on: the benchmark heap's files, and a copy baseline big enough
/// for either encoding.
final class ParseFixture {
  let files: SnapshotFiles
  let copyBaseline: CopyBaseline

  init(files: SnapshotFiles) {
    self.files = files
    copyBaseline = CopyBaseline(capacity: max(files.json.count, files.binary.count))
  }
}
