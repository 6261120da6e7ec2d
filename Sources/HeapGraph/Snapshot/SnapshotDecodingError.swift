/// A snapshot file that cannot be read: what is wrong and where.
///
/// The description names the problem, the record and the byte offset, and says what to do:
///
/// ```text
/// references[2].to: no object has id 99 (byte 412, line 14, column 32); every reference must name objects listed in "objects"
/// ```
public struct SnapshotDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
  enum Storage: Sendable, Hashable {
    case empty
    case syntax(String)
    case truncated(expected: String)
    case notASnapshot(found: String)
    case unsupportedVersion(found: Int, supported: ClosedRange<Int>)
    case missingField(String)
    case wrongType(expected: String, found: String)
    case invalidValue(String)
    case duplicateObjectID(Int64, firstIndex: Int)
    case duplicateStackID(Int64, firstIndex: Int)
    case unknownObject(Int64)
    case unknownStack(Int64)
    case unknownOwnership(String)
  }

  let storage: Storage
  /// Where the problem is; `nil` only for an empty file.
  public let location: SnapshotLocation?

  init(_ storage: Storage, at location: SnapshotLocation?) {
    self.storage = storage
    self.location = location
  }

  /// The same error with `key` put in front of its record path (`tool` → `metadata.tool`), as
  /// it propagates out of the member that `key` names.
  func prefixingPath(withKey key: String) -> SnapshotDecodingError {
    SnapshotDecodingError(storage, at: location?.prefixingPath(withKey: key))
  }

  /// The same error with `[index]` put in front of its record path (`type` → `[3].type`), as it
  /// propagates out of the array element at `index`.
  func prefixingPath(withIndex index: Int) -> SnapshotDecodingError {
    SnapshotDecodingError(storage, at: location?.prefixingPath(withIndex: index))
  }

  /// A stable identifier of the kind of problem, for tools and tests (`"duplicate-object-id"`).
  public var code: String {
    switch storage {
    case .empty: "empty-file"
    case .syntax: "invalid-json"
    case .truncated: "truncated"
    case .notASnapshot: "not-a-snapshot"
    case .unsupportedVersion: "unsupported-version"
    case .missingField: "missing-field"
    case .wrongType: "wrong-type"
    case .invalidValue: "invalid-value"
    case .duplicateObjectID: "duplicate-object-id"
    case .duplicateStackID: "duplicate-stack-id"
    case .unknownObject: "unknown-object"
    case .unknownStack: "unknown-stack"
    case .unknownOwnership: "unknown-ownership"
    }
  }

  /// What is wrong, in plain words, without the location.
  var problem: String {
    switch storage {
    case .empty:
      "the file is empty (0 bytes): a heap snapshot is a JSON object with \"format\": \"swift-heap-snapshot\""
    case .syntax(let message):
      "invalid JSON: \(message)"
    case .truncated(let expected):
      "the file ends early: expected \(expected); was it cut off while being written?"
    case .notASnapshot(let found):
      "not a heap snapshot: \"format\" is \(found), expected \"swift-heap-snapshot\""
    case .unsupportedVersion(let found, let supported):
      "snapshot version \(found) is not supported (this tool reads versions \(supported.lowerBound)...\(supported.upperBound)); use a leak-detector that supports it, or re-capture"
    case .missingField(let name):
      "missing required field \"\(name)\""
    case .wrongType(let expected, let found):
      "expected \(expected), found \(found)"
    case .invalidValue(let message):
      message
    case .duplicateObjectID(let id, let firstIndex):
      "object id \(id) is used twice (first by objects[\(firstIndex)]); ids must be unique"
    case .duplicateStackID(let id, let firstIndex):
      "stack id \(id) is used twice (first by stacks[\(firstIndex)]); ids must be unique"
    case .unknownObject(let id):
      "no object has id \(id); references and roots must name objects listed in \"objects\""
    case .unknownStack(let id):
      "no stack has id \(id); an object's \"stack\" must name an entry of \"stacks\""
    case .unknownOwnership(let value):
      "unknown ownership \"\(value)\"; expected one of strong, weak, unowned, unmanaged"
    }
  }

  public var description: String {
    location?.placing(problem) ?? problem
  }
}
