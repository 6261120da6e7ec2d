/// Where in a JSON file (a snapshot, a baseline) a problem is: a record path such as
/// `references[12].to`, and the byte offset (with the line and column derived from it).
public struct SnapshotLocation: Sendable, Hashable, CustomStringConvertible {
  /// A JSON-path-like name of the record or field, for example `objects[3].type`; empty for
  /// problems that are not inside a record.
  public var path: String
  /// The zero-based byte offset in the file.
  public var byteOffset: Int
  /// The one-based line of `byteOffset`.
  public var line: Int
  /// The one-based column (in bytes) of `byteOffset`.
  public var column: Int

  public init(path: String, byteOffset: Int, line: Int, column: Int) {
    self.path = path
    self.byteOffset = byteOffset
    self.line = line
    self.column = column
  }

  /// Computes the line and column of `byteOffset` in `bytes`.
  init(path: String, byteOffset: Int, in bytes: UnsafeBufferPointer<UInt8>) {
    var line = 1
    var lineStart = 0
    let limit = min(byteOffset, bytes.count)
    var index = 0
    while index < limit {
      if bytes[index] == UInt8(ascii: "\n") {
        line += 1
        lineStart = index + 1
      }
      index += 1
    }
    self.init(path: path, byteOffset: byteOffset, line: line, column: byteOffset - lineStart + 1)
  }

  /// The location one level further out: `key` put in front of the path, so that `type`
  /// becomes `metadata.type` and `[3].type` becomes `objects[3].type`.
  func prefixingPath(withKey key: String) -> SnapshotLocation {
    var location = self
    location.path = path.isEmpty || path.hasPrefix("[") ? key + path : key + "." + path
    return location
  }

  /// The location one level further out: `[index]` put in front of the path, so that `type`
  /// becomes `[3].type`.
  func prefixingPath(withIndex index: Int) -> SnapshotLocation {
    var location = self
    location.path = path.isEmpty || path.hasPrefix("[") ? "[\(index)]" + path : "[\(index)]." + path
    return location
  }

  /// `problem` with its place, as error messages give it:
  /// `"objects[3].type: expected a string, found null (byte 120, line 5, column 9)"`.
  func placing(_ problem: String) -> String {
    let position = "(byte \(byteOffset), line \(line), column \(column))"
    return path.isEmpty ? "\(problem) \(position)" : "\(path): \(problem) \(position)"
  }

  /// `"objects[3].type, byte 120 (line 5, column 9)"`.
  public var description: String {
    let position = "byte \(byteOffset) (line \(line), column \(column))"
    return path.isEmpty ? position : "\(path), \(position)"
  }
}
