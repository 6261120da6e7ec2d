/// Bytes that ``BinaryReader`` cannot decode: truncated, or not what the writer wrote.
package struct BinaryDecodingError: Error, Sendable, CustomStringConvertible {
  package var message: String
  package var description: String { message }

  package init(message: String) {
    self.message = message
  }
}
