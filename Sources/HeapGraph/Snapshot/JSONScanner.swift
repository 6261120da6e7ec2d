/// A pull scanner over the bytes of a JSON document, for schema-directed readers.
///
/// It never builds a document tree: readers ask for the value they expect next, and every
/// mismatch becomes a ``SnapshotDecodingError`` at the byte offset of the problem. The scanner
/// knows JSON, not the schema: its errors carry an empty record path, which the reader fills in
/// as the error propagates out of the members and elements it was reading. Nesting is bounded,
/// so hostile input cannot overflow the stack.
///
/// It scans a buffer held whole, or a file as it reads it (``JSONStreamWindow``): then
/// ``bytes`` is a window of the file, offsets count from the window's start, and an error's
/// offset, line and column are not the file's (a streaming reader reads the file again whole to
/// report a problem).
struct JSONScanner {
  private(set) var bytes: UnsafeBufferPointer<UInt8>
  private(set) var position = 0
  /// The window of a file being read; `nil` for a buffer held whole.
  private let stream: JSONStreamWindow?

  /// How deep `skipValue()` follows nested arrays and objects before it gives up.
  static let maximumNesting = 512

  init(bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
    stream = nil
  }

  /// A scanner of `input` as it reads it.
  init(streaming input: FileInput) {
    let stream = JSONStreamWindow(input)
    _ = stream.readMore()
    self.stream = stream
    bytes = stream.bytes
  }

  /// Whether it reads a file as it goes, in a window.
  var isStreaming: Bool { stream != nil }

  /// Whether reading the streamed file failed (its end was seen where the failure was).
  var streamReadFailed: Bool { stream?.readFailed ?? false }

  // MARK: - The window

  /// Whether there is a byte at `offset`: in a stream, the window is grown to hold it if the
  /// file has it.
  @inline(__always)
  private mutating func hasByte(at offset: Int) -> Bool {
    offset < bytes.count || readMore(toHold: offset)
  }

  private mutating func readMore(toHold offset: Int) -> Bool {
    guard let stream else { return false }
    while offset >= bytes.count {
      guard stream.readMore() else { return false }
      bytes = stream.bytes
    }
    return true
  }

  /// Between two elements of an array, where nothing before ``position`` is needed any more
  /// (offsets and keys held before it only name the place of an error), a streaming scanner lets
  /// go of what it has read once that is a piece or more.
  mutating func releaseReadBytes() {
    guard let stream, position >= JSONStreamWindow.pieceSize else { return }
    stream.drop(first: position)
    bytes = stream.bytes
    position = 0
  }

  // MARK: - Errors

  /// An error at `offset` (by default the current position), with an empty record path.
  func failure(_ storage: SnapshotDecodingError.Storage, at offset: Int? = nil) -> SnapshotDecodingError {
    SnapshotDecodingError(storage, at: SnapshotLocation(path: "", byteOffset: offset ?? position, in: bytes))
  }

  /// Describes the token at `offset` for "expected …, found …" messages.
  func describeToken(at offset: Int) -> String {
    guard offset < bytes.count else { return "the end of the file" }
    let byte = bytes[offset]
    switch byte {
    case UInt8(ascii: "\""): return "a string"
    case UInt8(ascii: "{"): return "an object"
    case UInt8(ascii: "["): return "an array"
    case UInt8(ascii: "t") where spells("true", at: offset), UInt8(ascii: "f") where spells("false", at: offset): return "a boolean"
    case UInt8(ascii: "n") where spells("null", at: offset): return "null"
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return "a number"
    case 0x21...0x7E: return "'\(Character(Unicode.Scalar(byte)))'"
    default:
      let hex = String(byte, radix: 16, uppercase: true)
      return "byte 0x\(hex.count == 1 ? "0" + hex : hex) (binary data, not JSON text)"
    }
  }

  /// Whether the bytes at `offset` spell `literal`.
  private func spells(_ literal: StaticString, at offset: Int) -> Bool {
    guard offset + literal.utf8CodeUnitCount <= bytes.count else { return false }
    return UnsafeBufferPointer(rebasing: bytes[offset..<offset + literal.utf8CodeUnitCount]).equals(literal)
  }

  // MARK: - Structure

  /// Skips a UTF-8 byte order mark at the start of the document, as some editors write one.
  /// Offsets count from after it.
  mutating func skipByteOrderMark() {
    guard position == 0, hasByte(at: 2), bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF else { return }
    if isStreaming {
      position = 3
    } else {
      self = JSONScanner(bytes: UnsafeBufferPointer(rebasing: bytes[3...]))
    }
  }

  /// Checks that nothing but whitespace follows the document's value, `what`.
  mutating func expectEnd(after what: String) throws(SnapshotDecodingError) {
    skipWhitespace()
    guard isAtEnd else {
      throw failure(.syntax("unexpected \(describeToken(at: position)) after the end of \(what)"))
    }
  }

  /// The offset of the opening quote of `key`, a key that `nextKey(_:)` returned.
  func offset(ofKey key: UnsafeBufferPointer<UInt8>) -> Int {
    guard let keyStart = key.baseAddress, let start = bytes.baseAddress else { return position }
    return keyStart - start - 1
  }

  mutating func skipWhitespace() {
    repeat {
      // The window's bytes in locals: the loop reads no state that a read of more would change.
      let window = bytes
      var offset = position
      while offset < window.count {
        switch window[offset] {
        case 0x20, 0x0A, 0x0D, 0x09: offset += 1
        default:
          position = offset
          return
        }
      }
      position = offset
    } while readMore(toHold: position)
  }

  /// The next significant byte, without consuming it.
  mutating func peek(expecting expected: @autoclosure () -> String) throws(SnapshotDecodingError) -> UInt8 {
    skipWhitespace()
    guard hasByte(at: position) else { throw failure(.truncated(expected: expected())) }
    return bytes[position]
  }

  var isAtEnd: Bool {
    mutating get { !hasByte(at: position) }
  }

  /// Skips whitespace and returns the offset where the next value starts, for error locations.
  mutating func valueStart() -> Int {
    skipWhitespace()
    return position
  }

  mutating func expect(_ byte: UInt8, _ expected: @autoclosure () -> String) throws(SnapshotDecodingError) {
    let found = try peek(expecting: expected())
    guard found == byte else {
      throw failure(.wrongType(expected: expected(), found: describeToken(at: position)))
    }
    position += 1
  }

  /// Reads `{`; pair with `nextKey(_:)`.
  mutating func beginObject(_ expected: @autoclosure () -> String = "an object") throws(SnapshotDecodingError) {
    try expect(UInt8(ascii: "{"), expected())
  }

  /// Reads `[`; pair with `nextElement(_:)`.
  mutating func beginArray(_ expected: @autoclosure () -> String = "an array") throws(SnapshotDecodingError) {
    try expect(UInt8(ascii: "["), expected())
  }

  /// Moves to the next member of an object and returns its key (as raw bytes, escapes left in
  /// place), or `nil` after the closing `}`. `isFirst` must start `true`.
  mutating func nextKey(_ isFirst: inout Bool) throws(SnapshotDecodingError) -> UnsafeBufferPointer<UInt8>? {
    var byte = try peek(expecting: "a key or '}'")
    if byte == UInt8(ascii: "}") {
      position += 1
      return nil
    }
    if !isFirst {
      guard byte == UInt8(ascii: ",") else {
        throw failure(.syntax("expected ',' or '}' after a member, found \(describeToken(at: position))"))
      }
      position += 1
      byte = try peek(expecting: "a key")
    }
    isFirst = false
    guard byte == UInt8(ascii: "\"") else {
      throw failure(.syntax("expected a quoted key, found \(describeToken(at: position))"))
    }
    let range = try scanStringBody()
    try expect(UInt8(ascii: ":"), "':' after a key")
    return UnsafeBufferPointer(rebasing: bytes[range.bytes])
  }

  /// Moves to the next element of an array; `false` after the closing `]`.
  mutating func nextElement(_ isFirst: inout Bool) throws(SnapshotDecodingError) -> Bool {
    let byte = try peek(expecting: "a value or ']'")
    if byte == UInt8(ascii: "]") {
      position += 1
      return false
    }
    if !isFirst {
      guard byte == UInt8(ascii: ",") else {
        throw failure(.syntax("expected ',' or ']' after an element, found \(describeToken(at: position))"))
      }
      position += 1
      _ = try peek(expecting: "a value")
    }
    isFirst = false
    return true
  }

  /// Consumes `null` if it is the next token.
  mutating func consumeNull() throws(SnapshotDecodingError) -> Bool {
    guard try peek(expecting: "a value") == UInt8(ascii: "n") else { return false }
    try consumeLiteral("null")
    return true
  }

  /// Reads `true` or `false`.
  mutating func readBoolean(_ expected: @autoclosure () -> String = "a boolean") throws(SnapshotDecodingError) -> Bool {
    switch try peek(expecting: expected()) {
    case UInt8(ascii: "t"):
      try consumeLiteral("true")
      return true
    case UInt8(ascii: "f"):
      try consumeLiteral("false")
      return false
    default: throw failure(.wrongType(expected: expected(), found: describeToken(at: position)))
    }
  }

  private mutating func consumeLiteral(_ literal: StaticString) throws(SnapshotDecodingError) {
    let count = literal.utf8CodeUnitCount
    let start = position
    guard hasByte(at: position + count - 1) else {
      if bytes.count - position > 0, literalPrefixMatches(literal, count: bytes.count - position) {
        throw failure(.truncated(expected: "the rest of '\(literal)'"))
      }
      throw failure(.syntax("unexpected \(describeToken(at: start))"), at: start)
    }
    guard literalPrefixMatches(literal, count: count) else {
      throw failure(.syntax("unexpected \(describeToken(at: start))"), at: start)
    }
    position += count
  }

  private func literalPrefixMatches(_ literal: StaticString, count: Int) -> Bool {
    let text = literal.utf8Start
    for offset in 0..<count where bytes[position + offset] != text[offset] {
      return false
    }
    return true
  }

  // MARK: - Scalars

  /// Reads a string value.
  mutating func readString(_ expected: @autoclosure () -> String = "a string") throws(SnapshotDecodingError) -> String {
    switch try readStringToken(expected()) {
    case .plain(let text): String(decoding: text, as: UTF8.self)  // valid as it is
    case .decoded(let string): string
    }
  }

  /// A string value as ``readStringToken(_:)`` reads it.
  enum StringToken {
    /// Plain ASCII without escapes: its bytes, in the scanner's buffer, valid until it reads on.
    case plain(UnsafeBufferPointer<UInt8>)
    /// Any other string, decoded.
    case decoded(String)
  }

  /// Reads a string value, leaving plain ASCII without escapes (nearly every string of a
  /// snapshot) as its bytes, so that a reader can compare or intern it without making a `String`.
  mutating func readStringToken(_ expected: @autoclosure () -> String = "a string") throws(SnapshotDecodingError) -> StringToken {
    let byte = try peek(expecting: expected())
    guard byte == UInt8(ascii: "\"") else {
      throw failure(.wrongType(expected: expected(), found: describeToken(at: position)))
    }
    let start = position
    let body = try scanStringBody()
    if !body.hasEscapes && body.isASCII { return .plain(UnsafeBufferPointer(rebasing: bytes[body.bytes])) }
    return .decoded(try decode(body, stringStart: start))
  }

  /// The text of a string body that is not plain ASCII without escapes.
  private func decode(
    _ body: (bytes: Range<Int>, hasEscapes: Bool, isASCII: Bool), stringStart start: Int
  ) throws(SnapshotDecodingError) -> String {
    if !body.hasEscapes {
      guard let string = String(validating: UnsafeBufferPointer(rebasing: bytes[body.bytes]), as: UTF8.self) else {
        throw failure(.syntax("the string is not valid UTF-8"), at: start)
      }
      return string
    }
    return try unescape(body.bytes, stringStart: start)
  }

  /// Reads a string or `null`.
  mutating func readOptionalString(_ expected: @autoclosure () -> String = "a string or null") throws(SnapshotDecodingError) -> String? {
    if try consumeNull() { return nil }
    return try readString(expected())
  }

  /// Reads an integer that fits in `Int64`; fractions and exponents are refused.
  mutating func readInteger(_ expected: @autoclosure () -> String = "an integer") throws(SnapshotDecodingError) -> Int64 {
    let first = try peek(expecting: expected())
    let start = position
    guard first == UInt8(ascii: "-") || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) else {
      throw failure(.wrongType(expected: expected(), found: describeToken(at: position)))
    }
    let negative = first == UInt8(ascii: "-")
    if negative { position += 1 }
    let digitsStart = position
    var magnitude: UInt64 = 0
    var overflow = false
    while hasByte(at: position) {
      let digit = bytes[position] &- UInt8(ascii: "0")
      guard digit < 10 else { break }
      let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
      let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
      overflow = overflow || o1 || o2
      magnitude = sum
      position += 1
    }
    let digitCount = position - digitsStart
    guard digitCount > 0 else {
      if !hasByte(at: position) { throw failure(.truncated(expected: "digits after '-'")) }
      throw failure(.syntax("expected digits after '-', found \(describeToken(at: position))"))
    }
    if digitCount > 1 && bytes[digitsStart] == UInt8(ascii: "0") {
      throw failure(.syntax("numbers may not have leading zeros"), at: start)
    }
    if hasByte(at: position) {
      let next = bytes[position]
      if next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
        throw failure(.wrongType(expected: expected(), found: "a fractional number"), at: start)
      }
    }
    let limit: UInt64 = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
    guard !overflow && magnitude <= limit else {
      throw failure(.invalidValue("the number is too large (more than 64 bits)"), at: start)
    }
    return negative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(magnitude)
  }

  /// Reads an integer or `null`.
  mutating func readOptionalInteger(_ expected: @autoclosure () -> String = "an integer or null") throws(SnapshotDecodingError) -> Int64? {
    if try consumeNull() { return nil }
    return try readInteger(expected())
  }

  /// Skips one value of any kind, validating its syntax.
  mutating func skipValue(depth: Int = 0) throws(SnapshotDecodingError) {
    guard depth < Self.maximumNesting else {
      throw failure(.syntax("values are nested more than \(Self.maximumNesting) levels deep"))
    }
    let byte = try peek(expecting: "a value")
    switch byte {
    case UInt8(ascii: "\""):
      _ = try scanStringBody()
    case UInt8(ascii: "{"):
      position += 1
      var isFirst = true
      while try nextKey(&isFirst) != nil { try skipValue(depth: depth + 1) }
    case UInt8(ascii: "["):
      position += 1
      var isFirst = true
      while try nextElement(&isFirst) { try skipValue(depth: depth + 1) }
    case UInt8(ascii: "t"): try consumeLiteral("true")
    case UInt8(ascii: "f"): try consumeLiteral("false")
    case UInt8(ascii: "n"): try consumeLiteral("null")
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      try skipNumber()
    default:
      throw failure(.syntax("expected a value, found \(describeToken(at: position))"))
    }
  }

  private mutating func skipNumber() throws(SnapshotDecodingError) {
    let start = position
    if bytes[position] == UInt8(ascii: "-") { position += 1 }
    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    var sawDigit = false
    while hasByte(at: position), isDigit(bytes[position]) {
      position += 1
      sawDigit = true
    }
    if hasByte(at: position), bytes[position] == UInt8(ascii: ".") {
      position += 1
      sawDigit = false
      while hasByte(at: position), isDigit(bytes[position]) {
        position += 1
        sawDigit = true
      }
    }
    if sawDigit, hasByte(at: position), bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
      position += 1
      if hasByte(at: position), bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
        position += 1
      }
      sawDigit = false
      while hasByte(at: position), isDigit(bytes[position]) {
        position += 1
        sawDigit = true
      }
    }
    guard sawDigit else {
      if !hasByte(at: position) { throw failure(.truncated(expected: "the rest of a number")) }
      throw failure(.syntax("malformed number"), at: start)
    }
  }

  // MARK: - Strings

  /// Scans a string starting at the opening quote; returns the bytes between the quotes, and
  /// whether they hold an escape or a byte outside ASCII.
  private mutating func scanStringBody() throws(SnapshotDecodingError) -> (bytes: Range<Int>, hasEscapes: Bool, isASCII: Bool) {
    let quote = position
    position += 1
    let start = position
    var hasEscapes = false
    var allBytes: UInt8 = 0
    repeat {
      // The window's bytes in locals: the loop reads no state that a read of more would change.
      let window = bytes
      var offset = position
      while offset < window.count {
        let byte = window[offset]
        allBytes |= byte
        if byte == UInt8(ascii: "\"") {
          position = offset + 1
          return (start..<offset, hasEscapes, allBytes < 0x80)
        }
        if byte == UInt8(ascii: "\\") {
          hasEscapes = true
          offset += 2
          continue
        }
        if byte < 0x20 {
          position = offset
          throw failure(.syntax("control character 0x\(String(byte, radix: 16)) inside a string; it must be escaped"))
        }
        offset += 1
      }
      position = offset
    } while readMore(toHold: position)
    throw failure(.truncated(expected: "the closing '\"' of the string that starts at byte \(quote)"), at: bytes.count)
  }

  private func unescape(_ range: Range<Int>, stringStart: Int) throws(SnapshotDecodingError) -> String {
    var output: [UInt8] = []
    output.reserveCapacity(range.count)
    var index = range.lowerBound
    func hex4(at offset: Int) throws(SnapshotDecodingError) -> UInt32 {
      guard offset + 4 <= range.upperBound else {
        throw failure(.syntax("a \\u escape needs four hex digits"), at: offset)
      }
      var value: UInt32 = 0
      for byte in bytes[offset..<offset + 4] {
        let digit: UInt8
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
        default: throw failure(.syntax("invalid hex digit in a \\u escape"), at: offset)
        }
        value = value << 4 | UInt32(digit)
      }
      return value
    }
    while index < range.upperBound {
      let byte = bytes[index]
      guard byte == UInt8(ascii: "\\") else {
        output.append(byte)
        index += 1
        continue
      }
      guard index + 1 < range.upperBound else {
        throw failure(.syntax("a string ends with a lone backslash"), at: index)
      }
      let escaped = bytes[index + 1]
      index += 2
      switch escaped {
      case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
      case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
      case UInt8(ascii: "/"): output.append(UInt8(ascii: "/"))
      case UInt8(ascii: "b"): output.append(0x08)
      case UInt8(ascii: "f"): output.append(0x0C)
      case UInt8(ascii: "n"): output.append(0x0A)
      case UInt8(ascii: "r"): output.append(0x0D)
      case UInt8(ascii: "t"): output.append(0x09)
      case UInt8(ascii: "u"):
        var scalar = try hex4(at: index)
        index += 4
        if (0xD800..<0xDC00).contains(scalar) {
          guard index + 6 <= range.upperBound, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
            throw failure(.syntax("an unpaired UTF-16 surrogate in a \\u escape"), at: index - 6)
          }
          let low = try hex4(at: index + 2)
          guard (0xDC00..<0xE000).contains(low) else {
            throw failure(.syntax("an unpaired UTF-16 surrogate in a \\u escape"), at: index)
          }
          index += 6
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00..<0xE000).contains(scalar) {
          throw failure(.syntax("an unpaired UTF-16 surrogate in a \\u escape"), at: index - 6)
        }
        guard let unicode = Unicode.Scalar(scalar) else {
          throw failure(.syntax("an invalid Unicode scalar in a \\u escape"), at: index - 6)
        }
        output.append(contentsOf: String(Character(unicode)).utf8)
      default:
        throw failure(.syntax("invalid escape '\\\(Character(Unicode.Scalar(escaped)))'"), at: index - 2)
      }
    }
    guard let string = String(validating: output, as: UTF8.self) else {
      throw failure(.syntax("the string is not valid UTF-8"), at: stringStart)
    }
    return string
  }
}

extension UnsafeBufferPointer<UInt8> {
  /// Whether these bytes spell `literal` exactly.
  func equals(_ literal: StaticString) -> Bool {
    guard count == literal.utf8CodeUnitCount else { return false }
    let text = literal.utf8Start
    for index in 0..<count where self[index] != text[index] {
      return false
    }
    return true
  }
}
