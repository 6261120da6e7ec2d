import Foundation
import XCTest

extension XCTestCase {
  /// A new directory named `prefix-UUID` in the temporary directory, removed when the test ends.
  public func makeTemporaryDirectory(prefix: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
  }
}
