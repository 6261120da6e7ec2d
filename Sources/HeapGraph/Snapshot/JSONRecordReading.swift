/// A schema-directed reader over a ``JSONScanner`` (a snapshot's, a baseline's): it walks
/// objects member by member and arrays element by element, and gives every error that leaves a
/// member or element its place in the document.
protocol JSONRecordReading {
  var scanner: JSONScanner { get set }
}

extension JSONRecordReading {
  /// Reads the object that starts here member by member: `readMember` gets each key (its raw
  /// bytes, escapes left in place) and must read the member's value.
  ///
  /// This is where record paths come from: an error thrown by `readMember` leaves with the key
  /// put in front of its path, so `"expected a string"` thrown while reading `tool` inside
  /// `metadata` reaches the caller as `metadata.tool`. The key becomes a `String` only then.
  /// Errors in the object's own syntax (a missing `,`) name the object, not a member. A
  /// streaming scanner's errors name no place (its window may no longer hold the key).
  @inline(__always)
  mutating func forEachMember(
    _ expected: @autoclosure () -> String = "an object",
    _ readMember: (inout Self, _ key: UnsafeBufferPointer<UInt8>) throws(SnapshotDecodingError) -> Void
  ) throws(SnapshotDecodingError) {
    try scanner.beginObject(expected())
    var isFirst = true
    while let key = try scanner.nextKey(&isFirst) {
      do {
        try readMember(&self, key)
      } catch {
        throw scanner.isStreaming ? error : error.prefixingPath(withKey: String(decoding: key, as: UTF8.self))
      }
    }
  }

  /// Reads the array that starts here element by element: `readElement` gets each index and must
  /// read the element.
  ///
  /// An error thrown by `readElement` leaves with `[index]` put in front of its path (`type`
  /// becomes `[3].type`, and the member that holds the array makes it `objects[3].type`). A
  /// syntax error between two elements (a missing `,`) names the element before it.
  ///
  /// Between two elements, a streaming scanner lets go of what it has read.
  @inline(__always)
  mutating func forEachElement(
    _ expected: @autoclosure () -> String,
    _ readElement: (inout Self, _ index: Int) throws(SnapshotDecodingError) -> Void
  ) throws(SnapshotDecodingError) {
    try scanner.beginArray(expected())
    var isFirst = true
    var index = 0
    while true {
      scanner.releaseReadBytes()
      do {
        guard try scanner.nextElement(&isFirst) else { return }
      } catch {
        throw index == 0 ? error : error.prefixingPath(withIndex: index - 1)
      }
      do {
        try readElement(&self, index)
      } catch {
        throw error.prefixingPath(withIndex: index)
      }
      index += 1
    }
  }
}
