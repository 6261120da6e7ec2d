/// Bytes that ``HeapSnapshot/init(binaryBytes:)`` cannot decode: truncated, or not what the
/// writer wrote. The message names the byte offset, or the column and entry:
///
/// ```text
/// reference targets[0]: index 9 is out of range (there are 2 objects)
/// ```
public struct BinaryDecodingError: Error, Sendable, CustomStringConvertible {
  public var message: String
  public var description: String { message }

  package init(message: String) {
    self.message = message
  }
}
