import XCTest

/// Compares `actual` with the golden file `__Snapshots__/<name>` next to the calling test file.
///
/// A missing golden file is recorded and the test fails with "Recorded new golden file … re-run";
/// `RECORD_SNAPSHOTS=1` re-records every golden file. CI runs with recording off, so a missing
/// file fails there too.
public func assertMatchesGolden(
  _ actual: String, named name: String, file: StaticString = #filePath, line: UInt = #line
) {
  let testFile = "\(file)"
  let directory = String(testFile[..<(testFile.lastIndex(of: "/") ?? testFile.endIndex)]) + "/__Snapshots__"
  let path = "\(directory)/\(name)"
  let record = ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1"
  if !record, let expected = try? String(contentsOfFile: path, encoding: .utf8) {
    if expected != actual {
      XCTFail(
        "\(name) differs from its golden file \(path).\n--- expected\n\(expected)\n+++ actual\n\(actual)\nIf the change is intended, re-run with RECORD_SNAPSHOTS=1.",
        file: file, line: line)
    }
    return
  }
  try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  do {
    try actual.write(toFile: path, atomically: true, encoding: .utf8)
    XCTFail("Recorded new golden file \(path); check it and re-run.", file: file, line: line)
  } catch {
    XCTFail("Could not record the golden file \(path): \(error)", file: file, line: line)
  }
}

/// The directory of the calling test file, for its fixtures.
public func directory(of file: StaticString = #filePath) -> String {
  let path = "\(file)"
  return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
}
