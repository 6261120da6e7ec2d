/// Appends JSON text to a byte buffer: hand-written so that output is fast and deterministic
/// (keys in the order written, integers without exponents, stable escaping).
///
/// Containers place their own separators: a multi-line container puts each member on a line of
/// its own, indented two spaces per multi-line level; an inline one separates members with `, `.
///
/// ```swift
/// var writer = JSONWriter()
/// writer.beginObject(multiline: true)
/// writer.field("format", "swift-heap-snapshot")
/// writer.key("objects")
/// writer.beginArray(multiline: true)
/// writer.beginObject()
/// writer.field("id", 1)
/// writer.endObject()
/// writer.endArray()
/// writer.endObject()
/// ```
/// ```text
/// {
///   "format": "swift-heap-snapshot",
///   "objects": [
///     {"id": 1}
///   ]
/// }
/// ```
struct JSONWriter {
  private(set) var bytes: [UInt8] = []
  private var containers: [(multiline: Bool, isEmpty: Bool)] = []
  private var multilineDepth = 0
  private var isAfterKey = false
  /// Where a streaming writer hands its text, in order, once ``bytes`` holds ``pieceSize``
  /// bytes at the end of a container; `nil` keeps the whole text in ``bytes``.
  private var sink: ((UnsafeRawBufferPointer) -> Void)?
  /// About how many bytes a streaming writer hands its sink at a time.
  static let pieceSize = 1 << 20

  init(reservingCapacity capacity: Int = 4096) {
    bytes.reserveCapacity(capacity)
  }

  /// A writer that hands its text to `sink` in pieces as it is written, so that the whole text
  /// is never in memory; ``finishStream()`` hands the last piece.
  init(streamingTo sink: @escaping (UnsafeRawBufferPointer) -> Void) {
    self.sink = sink
    bytes.reserveCapacity(Self.pieceSize + Self.pieceSize / 4)
  }

  /// Hands the rest of a streaming writer's text to its sink, with the final newline.
  consuming func finishStream() {
    bytes.append(UInt8(ascii: "\n"))
    handOver()
  }

  private mutating func handOver() {
    guard let sink, !bytes.isEmpty else { return }
    bytes.withUnsafeBytes(sink)
    bytes.removeAll(keepingCapacity: true)
  }

  /// The finished document as a file holds it: the bytes and a final newline. It takes the
  /// writer's buffer rather than copying it (a report can be tens of megabytes).
  consuming func finishDocument() -> [UInt8] {
    bytes.append(UInt8(ascii: "\n"))
    return bytes
  }

  /// The finished document as text, with its final newline.
  consuming func finishDocumentText() -> String {
    String(decoding: finishDocument(), as: UTF8.self)
  }

  // MARK: - Containers

  mutating func beginObject(multiline: Bool = false) {
    open(UInt8(ascii: "{"), multiline: multiline)
  }

  mutating func endObject() {
    close(UInt8(ascii: "}"))
  }

  mutating func beginArray(multiline: Bool = false) {
    open(UInt8(ascii: "["), multiline: multiline)
  }

  mutating func endArray() {
    close(UInt8(ascii: "]"))
  }

  /// Writes `"key": `; the value written next belongs to it.
  mutating func key(_ key: StaticString) {
    separate()
    bytes.append(UInt8(ascii: "\""))
    append(key)
    append("\": ")
    isAfterKey = true
  }

  private mutating func open(_ bracket: UInt8, multiline: Bool) {
    separate()
    bytes.append(bracket)
    containers.append((multiline, true))
    if multiline { multilineDepth += 1 }
  }

  private mutating func close(_ bracket: UInt8) {
    let container = containers.removeLast()
    if container.multiline {
      multilineDepth -= 1
      if !container.isEmpty { newline() }
    }
    bytes.append(bracket)
    if bytes.count >= Self.pieceSize && sink != nil { handOver() }
  }

  /// Writes the separator that comes before a member or element, unless a key just did.
  private mutating func separate() {
    if isAfterKey {
      isAfterKey = false
      return
    }
    guard let container = containers.last else { return }
    if !container.isEmpty { bytes.append(UInt8(ascii: ",")) }
    if container.multiline {
      newline()
    } else if !container.isEmpty {
      bytes.append(UInt8(ascii: " "))
    }
    containers[containers.count - 1].isEmpty = false
  }

  private mutating func newline() {
    bytes.append(UInt8(ascii: "\n"))
    bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * multilineDepth))
  }

  private mutating func append(_ text: StaticString) {
    bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  // MARK: - Values

  mutating func string(_ value: String) {
    separate()
    bytes.append(UInt8(ascii: "\""))
    var value = value
    value.withUTF8 { utf8 in
      // Runs of bytes that need no escape are copied whole.
      var runStart = 0
      for index in utf8.indices where utf8[index] < 0x20 || utf8[index] == UInt8(ascii: "\"") || utf8[index] == UInt8(ascii: "\\") {
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
        appendEscaped(utf8[index])
        runStart = index + 1
      }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
    }
    bytes.append(UInt8(ascii: "\""))
  }

  private mutating func appendEscaped(_ byte: UInt8) {
    switch byte {
    case UInt8(ascii: "\""): append("\\\"")
    case UInt8(ascii: "\\"): append("\\\\")
    case 0x0A: append("\\n")
    case 0x0D: append("\\r")
    case 0x09: append("\\t")
    default:
      append("\\u00")
      bytes.append(Self.hexDigits[Int(byte >> 4)])
      bytes.append(Self.hexDigits[Int(byte & 0xF)])
    }
  }

  mutating func integer<T: BinaryInteger>(_ value: T) {
    separate()
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    var magnitude = value.magnitude
    let start = bytes.count
    repeat {
      bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10))
      magnitude /= 10
    } while magnitude > 0
    bytes[start...].reverse()
  }

  mutating func boolean(_ value: Bool) {
    separate()
    append(value ? "true" : "false")
  }

  mutating func null() {
    separate()
    append("null")
  }

  /// Writes an address as a `"0x…"` string.
  mutating func address(_ value: UInt64) {
    string("0x" + String(value, radix: 16))
  }

  // MARK: - Members

  mutating func field(_ key: StaticString, _ value: String) {
    self.key(key)
    string(value)
  }

  /// Writes the member with `null` when `value` is `nil`.
  mutating func field(_ key: StaticString, _ value: String?) {
    self.key(key)
    if let value { string(value) } else { null() }
  }

  mutating func field<T: BinaryInteger>(_ key: StaticString, _ value: T) {
    self.key(key)
    integer(value)
  }

  mutating func field(_ key: StaticString, _ value: Bool) {
    self.key(key)
    boolean(value)
  }

  mutating func field(_ key: StaticString, address value: UInt64) {
    self.key(key)
    address(value)
  }

  private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
