/// Whether `text` is exactly one JSON value (surrounding whitespace allowed), checked with the
/// snapshot reader's own scanner, which validates the syntax of everything it skips.
func isOneJSONValue(_ text: String) -> Bool {
  var bytes = Array(text.utf8)
  return bytes.withUnsafeMutableBufferPointer { buffer in
    var scanner = JSONScanner(bytes: UnsafeBufferPointer(buffer))
    do {
      try scanner.skipValue()
    } catch {
      return false
    }
    scanner.skipWhitespace()
    return scanner.isAtEnd
  }
}

/// Whether every character of `text` may appear in an XML 1.0 document (the `Char` production:
/// no C0 control but tab, line feed and carriage return, no U+FFFE or U+FFFF).
func isXMLText(_ text: String) -> Bool {
  text.unicodeScalars.allSatisfy { scalar in
    switch scalar.value {
    case 0x09, 0x0A, 0x0D: true
    case 0x00..<0x20, 0xFFFE, 0xFFFF: false
    default: true
    }
  }
}

/// Whether `text` is a well-formed XML document of the kind the JUnit renderer writes: an
/// optional declaration, then one root element with double-quoted attributes, text, and entity
/// or character references (no comments, CDATA sections or document types), every character
/// one XML allows, every element closed in order.
func isWellFormedXML(_ text: String) -> Bool {
  guard isXMLText(text) else { return false }
  let bytes = Array(text.utf8)
  var index = 0
  func at(_ literal: String) -> Bool { bytes[index...].starts(with: literal.utf8) }
  func isNameByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
      UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"):
      true
    default: false
    }
  }
  func name() -> ArraySlice<UInt8>? {
    let start = index
    while index < bytes.count, isNameByte(bytes[index]) { index += 1 }
    return index > start ? bytes[start..<index] : nil
  }
  func skipSpace() {
    while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
  }
  /// A reference after `&`: `amp;`, `#10;`, `#xA;`.
  func reference() -> Bool {
    index += 1
    if index < bytes.count, bytes[index] == UInt8(ascii: "#") {
      index += 1
      let hex = index < bytes.count && bytes[index] == UInt8(ascii: "x")
      if hex { index += 1 }
      let start = index
      while index < bytes.count, hex ? bytes[index].isHexDigit : bytes[index].isDecimalDigit { index += 1 }
      guard index > start, index < bytes.count, bytes[index] == UInt8(ascii: ";") else { return false }
      index += 1
      return true
    }
    guard let entity = name(), ["amp", "lt", "gt", "quot", "apos"].contains(String(decoding: entity, as: UTF8.self)),
      index < bytes.count, bytes[index] == UInt8(ascii: ";")
    else { return false }
    index += 1
    return true
  }

  if at("<?xml") {
    while index < bytes.count, !at("?>") { index += 1 }
    guard index < bytes.count else { return false }
    index += 2
  }
  var open: [ArraySlice<UInt8>] = []
  var closedRoot = false
  while index < bytes.count {
    switch bytes[index] {
    case UInt8(ascii: "<") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/"):
      index += 2
      guard let closing = name(), closing == open.last else { return false }
      skipSpace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else { return false }
      index += 1
      open.removeLast()
      closedRoot = open.isEmpty
    case UInt8(ascii: "<"):
      guard !closedRoot else { return false }
      index += 1
      guard let element = name() else { return false }
      var attributes: Set<ArraySlice<UInt8>> = []
      while true {
        skipSpace()
        guard index < bytes.count else { return false }
        if bytes[index] == UInt8(ascii: ">") {
          index += 1
          open.append(element)
          break
        }
        if at("/>") {
          index += 2
          closedRoot = open.isEmpty
          break
        }
        guard let attribute = name(), attributes.insert(attribute).inserted else { return false }
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { return false }
        index += 1
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return false }
        index += 1
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
          switch bytes[index] {
          case UInt8(ascii: "<"): return false
          case UInt8(ascii: "&"): guard reference() else { return false }
          default: index += 1
          }
        }
        guard index < bytes.count else { return false }
        index += 1
      }
    case UInt8(ascii: "&"):
      guard !open.isEmpty, reference() else { return false }
    case 0x20, 0x09, 0x0A, 0x0D:
      index += 1
    default:
      guard !open.isEmpty else { return false }
      index += 1
    }
  }
  return closedRoot
}

/// Whether every line of a DOT document ends outside a quoted string, as the DOT renderer writes
/// one statement per line (a quote it failed to escape would leave a string open, or close one
/// early and open another).
func isLineBalancedDOT(_ text: String) -> Bool {
  text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).allSatisfy { line in
    var inString = false
    var escaped = false
    for byte in line {
      if escaped {
        escaped = false
      } else if inString && byte == UInt8(ascii: "\\") {
        escaped = true
      } else if byte == UInt8(ascii: "\"") {
        inString.toggle()
      }
    }
    return !inString
  }
}

/// Whether the Markdown table in `text` has exactly `rows` rows after its header, each on one
/// line with four cells (a line break inside a cell would end the row and the table, an
/// unescaped `|` would add a cell). CommonMark ends lines at a line feed or a carriage return.
func markdownTableHasRows(_ text: String, _ rows: Int) -> Bool {
  let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
  guard let header = lines.firstIndex(of: "| --- | --- | --- | --- |") else { return rows == 0 }
  let body = lines[(header + 1)...].prefix { !$0.isEmpty }
  return body.count == rows
    && body.allSatisfy { row in
      var pipes = 0
      var escaped = false
      for scalar in row.unicodeScalars {
        if escaped {
          escaped = false
        } else if scalar == "\\" {
          escaped = true
        } else if scalar == "|" {
          pipes += 1
        }
      }
      return pipes == 5 && row.hasPrefix("| ") && row.hasSuffix(" |")
    }
}

extension UInt8 {
  fileprivate var isDecimalDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
  fileprivate var isHexDigit: Bool {
    isDecimalDigit || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
  }
}
