extension HeapSnapshot {
  /// Reads a snapshot in the JSON format, version 1.
  ///
  /// Unknown fields are ignored. Every problem (invalid or truncated JSON, a missing or mistyped
  /// field, a duplicate id, a reference to a missing object, an unknown ownership, an
  /// unsupported version) throws a ``SnapshotDecodingError`` that names the record and the byte
  /// offset.
  ///
  /// - Complexity: O(*n*) in the size of the input; no document tree is built.
  public init(jsonBytes: [UInt8]) throws(SnapshotDecodingError) {
    let result: Result<HeapSnapshot, SnapshotDecodingError> = jsonBytes.withUnsafeBufferPointer { buffer in
      Result { () throws(SnapshotDecodingError) in try HeapSnapshot(jsonBuffer: buffer) }
    }
    self = try result.get()
  }

  /// Reads a snapshot from bytes that the caller keeps alive for the duration of the call.
  public init(jsonBuffer: UnsafeBufferPointer<UInt8>) throws(SnapshotDecodingError) {
    var reader = SnapshotJSONReader(bytes: jsonBuffer)
    self = try reader.read()
  }
}

/// The state of one read: the snapshot under construction and the raw ids still to resolve.
private struct SnapshotJSONReader {
  var scanner: JSONScanner
  var snapshot = HeapSnapshot(metadata: .init())

  var objectOffsets: [Int] = []
  var objectStackIDs: [Int64] = []  // Int64.min: none
  var referenceOffsets: [Int] = []
  var rawSources: [Int64] = []
  var rawTargets: [Int64] = []
  var rawRoots: [(object: Int64, offset: Int)] = []
  var stackOffsets: [Int] = []

  init(bytes: UnsafeBufferPointer<UInt8>) {
    scanner = JSONScanner(bytes: bytes)
  }

  mutating func read() throws(SnapshotDecodingError) -> HeapSnapshot {
    guard scanner.bytes.count > 0 else { throw SnapshotDecodingError(.empty, at: nil) }
    skipByteOrderMark()
    let first = try scanner.peek(expecting: "a JSON object with \"format\": \"swift-heap-snapshot\"")
    guard first == UInt8(ascii: "{") else {
      throw scanner.failure(
        .wrongType(
          expected: "a JSON object with \"format\": \"swift-heap-snapshot\"",
          found: scanner.describeToken(at: scanner.position)))
    }
    try readTopLevel()
    try resolve()
    return snapshot
  }

  private mutating func skipByteOrderMark() {
    let bytes = scanner.bytes
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
      scanner = JSONScanner(bytes: UnsafeBufferPointer(rebasing: bytes[3...]))
    }
  }

  // MARK: - Top level

  private mutating func readTopLevel() throws(SnapshotDecodingError) {
    let start = scanner.position
    try scanner.beginObject()
    var seenFormat = false
    var seenVersion = false
    var seenObjects = false
    var seenReferences = false
    var isFirst = true
    while let key = try scanner.nextKey(&isFirst) {
      scanner.section = ""
      scanner.index = -1
      if key.equals("format") {
        scanner.field = "format"
        let valueStart = scanner.valueStart()
        let format = try scanner.readString()
        guard format == HeapSnapshot.formatName else {
          throw scanner.failure(.notASnapshot(found: "\"\(format)\""), at: valueStart)
        }
        seenFormat = true
      } else if key.equals("version") {
        scanner.field = "version"
        let valueStart = scanner.valueStart()
        let version = try scanner.readInteger()
        guard let version = Int(exactly: version), HeapSnapshot.supportedVersions.contains(version) else {
          throw scanner.failure(
            .unsupportedVersion(found: Int(clamping: version), supported: HeapSnapshot.supportedVersions), at: valueStart)
        }
        seenVersion = true
      } else if key.equals("metadata") {
        scanner.field = "metadata"
        try readMetadata()
      } else if key.equals("objects") {
        try readArray(section: "objects") { reader throws(SnapshotDecodingError) in try reader.readObject() }
        seenObjects = true
      } else if key.equals("references") {
        try readArray(section: "references") { reader throws(SnapshotDecodingError) in try reader.readReference() }
        seenReferences = true
      } else if key.equals("roots") {
        try readArray(section: "roots") { reader throws(SnapshotDecodingError) in try reader.readRoot() }
      } else if key.equals("stacks") {
        try readArray(section: "stacks") { reader throws(SnapshotDecodingError) in try reader.readStack() }
      } else {
        scanner.field = nil
        try scanner.skipValue()
      }
    }
    scanner.section = ""
    scanner.index = -1
    scanner.field = nil
    scanner.skipWhitespace()
    guard scanner.isAtEnd else {
      throw scanner.failure(.syntax("unexpected \(scanner.describeToken(at: scanner.position)) after the end of the snapshot object"))
    }
    for (seen, name) in [(seenFormat, "format"), (seenVersion, "version"), (seenObjects, "objects"), (seenReferences, "references")]
    where !seen {
      throw scanner.failure(.missingField(name), at: start)
    }
  }

  private mutating func readMetadata() throws(SnapshotDecodingError) {
    if try scanner.consumeNull() { return }
    try scanner.beginObject("an object")
    var isFirst = true
    while let key = try scanner.nextKey(&isFirst) {
      if key.equals("tool") {
        scanner.field = "metadata.tool"
        snapshot.metadata.tool = try scanner.readOptionalString()
      } else if key.equals("createdAt") {
        scanner.field = "metadata.createdAt"
        snapshot.metadata.createdAt = try scanner.readOptionalString()
      } else if key.equals("process") {
        scanner.field = "metadata.process"
        snapshot.metadata.process = try scanner.readOptionalString()
      } else {
        try scanner.skipValue()
      }
    }
  }

  private mutating func readArray(
    section: String, _ readElement: (inout SnapshotJSONReader) throws(SnapshotDecodingError) -> Void
  ) throws(SnapshotDecodingError) {
    scanner.field = nil
    scanner.section = section
    scanner.index = -1
    try scanner.beginArray("an array of records")
    var isFirst = true
    var index = 0
    while try scanner.nextElement(&isFirst) {
      scanner.index = index
      scanner.field = nil
      try readElement(&self)
      index += 1
    }
  }

  // MARK: - Records

  private mutating func readObject() throws(SnapshotDecodingError) {
    let start = scanner.position
    try scanner.beginObject("an object record")
    var id: Int64?
    var typeIndex: Int32?
    var address: UInt64 = 0
    var size: Int64 = -1
    var generation = Int64.min
    var stackID = Int64.min
    var isFirst = true
    while let key = try scanner.nextKey(&isFirst) {
      if key.equals("id") {
        scanner.field = "id"
        id = try scanner.readInteger()
      } else if key.equals("type") {
        scanner.field = "type"
        let valueStart = scanner.valueStart()
        let type = try scanner.readString()
        guard !type.isEmpty else { throw scanner.failure(.invalidValue("the type name is empty"), at: valueStart) }
        typeIndex = snapshot.typeNames.intern(type)
      } else if key.equals("address") {
        scanner.field = "address"
        address = try readAddress() ?? 0
      } else if key.equals("size") {
        scanner.field = "size"
        size = try readNonNegative() ?? -1
      } else if key.equals("generation") {
        scanner.field = "generation"
        generation = try scanner.readOptionalInteger() ?? Int64.min
      } else if key.equals("stack") {
        scanner.field = "stack"
        stackID = try scanner.readOptionalInteger() ?? Int64.min
      } else {
        scanner.field = nil
        try scanner.skipValue()
      }
    }
    scanner.field = nil
    guard let id else { throw scanner.failure(.missingField("id"), at: start) }
    guard let typeIndex else { throw scanner.failure(.missingField("type"), at: start) }
    objectOffsets.append(start)
    objectStackIDs.append(stackID)
    snapshot.appendObject(id: id, typeIndex: typeIndex, address: address, size: size, generation: generation, stackIndex: -1)
  }

  private mutating func readReference() throws(SnapshotDecodingError) {
    let start = scanner.position
    try scanner.beginObject("a reference record")
    var from: Int64?
    var to: Int64?
    var label: Int32 = -1
    var ownership: Ownership?
    var isFirst = true
    while let key = try scanner.nextKey(&isFirst) {
      if key.equals("from") {
        scanner.field = "from"
        from = try scanner.readInteger("an object id (integer)")
      } else if key.equals("to") {
        scanner.field = "to"
        to = try scanner.readInteger("an object id (integer)")
      } else if key.equals("label") {
        scanner.field = "label"
        label = try scanner.readOptionalString().map { snapshot.labels.intern($0) } ?? -1
      } else if key.equals("ownership") {
        scanner.field = "ownership"
        let valueStart = scanner.valueStart()
        let value = try scanner.readString("one of \"strong\", \"weak\", \"unowned\", \"unmanaged\"")
        guard let parsed = Ownership(rawValue: value) else {
          throw scanner.failure(.unknownOwnership(value), at: valueStart)
        }
        ownership = parsed
      } else {
        scanner.field = nil
        try scanner.skipValue()
      }
    }
    scanner.field = nil
    guard let from else { throw scanner.failure(.missingField("from"), at: start) }
    guard let to else { throw scanner.failure(.missingField("to"), at: start) }
    guard let ownership else { throw scanner.failure(.missingField("ownership"), at: start) }
    referenceOffsets.append(start)
    rawSources.append(from)
    rawTargets.append(to)
    snapshot.appendReference(source: -1, target: -1, labelIndex: label, ownership: ownership)
  }

  private mutating func readRoot() throws(SnapshotDecodingError) {
    let start = scanner.position
    try scanner.beginObject("a root record")
    var object: Int64?
    var kind = "unknown"
    var label: String?
    var isFirst = true
    while let key = try scanner.nextKey(&isFirst) {
      if key.equals("object") {
        scanner.field = "object"
        object = try scanner.readInteger("an object id (integer)")
      } else if key.equals("kind") {
        scanner.field = "kind"
        kind = try scanner.readOptionalString() ?? "unknown"
      } else if key.equals("label") {
        scanner.field = "label"
        label = try scanner.readOptionalString()
      } else {
        scanner.field = nil
        try scanner.skipValue()
      }
    }
    scanner.field = nil
    guard let object else { throw scanner.failure(.missingField("object"), at: start) }
    rawRoots.append((object, start))
    snapshot.roots.append(HeapSnapshot.Root(object: object, kind: kind, label: label))
  }

  private mutating func readStack() throws(SnapshotDecodingError) {
    let start = scanner.position
    try scanner.beginObject("a stack record")
    var id: Int64?
    var frames: [StackFrame]?
    var isFirst = true
    while let key = try scanner.nextKey(&isFirst) {
      if key.equals("id") {
        scanner.field = "id"
        id = try scanner.readInteger()
      } else if key.equals("frames") {
        scanner.field = "frames"
        frames = try readFrames()
      } else {
        scanner.field = nil
        try scanner.skipValue()
      }
    }
    scanner.field = nil
    guard let id else { throw scanner.failure(.missingField("id"), at: start) }
    guard let frames else { throw scanner.failure(.missingField("frames"), at: start) }
    stackOffsets.append(start)
    snapshot.stacks.append(HeapSnapshot.Stack(id: id, frames: frames))
  }

  private mutating func readFrames() throws(SnapshotDecodingError) -> [StackFrame] {
    try scanner.beginArray("an array of frames")
    var frames: [StackFrame] = []
    var isFirst = true
    while try scanner.nextElement(&isFirst) {
      try scanner.beginObject("a frame record")
      var frame = StackFrame()
      var isFirstKey = true
      while let key = try scanner.nextKey(&isFirstKey) {
        if key.equals("pc") {
          scanner.field = "frames.pc"
          frame.pc = try readAddress()
        } else if key.equals("symbol") {
          scanner.field = "frames.symbol"
          frame.symbol = try scanner.readOptionalString()
        } else if key.equals("file") {
          scanner.field = "frames.file"
          frame.file = try scanner.readOptionalString()
        } else if key.equals("line") {
          scanner.field = "frames.line"
          frame.line = try readNonNegative().map { Int($0) }
        } else if key.equals("column") {
          scanner.field = "frames.column"
          frame.column = try readNonNegative().map { Int($0) }
        } else {
          try scanner.skipValue()
        }
      }
      scanner.field = "frames"
      frames.append(frame)
    }
    return frames
  }

  // MARK: - Values

  /// An address: a `"0x…"` hex string or a non-negative integer; `null` is unknown.
  private mutating func readAddress() throws(SnapshotDecodingError) -> UInt64? {
    let expected = "an address (\"0x…\" string or integer)"
    let first = try scanner.peek(expecting: expected)
    if first != UInt8(ascii: "\"") {
      if try scanner.consumeNull() { return nil }
      let start = scanner.valueStart()
      let value = try scanner.readInteger(expected)
      guard value >= 0 else { throw scanner.failure(.invalidValue("an address cannot be negative"), at: start) }
      return UInt64(value)
    }
    let start = scanner.valueStart()
    let text = try scanner.readString(expected)
    var digits = Substring(text)
    if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
    guard !digits.isEmpty, digits.count <= 16, let value = UInt64(digits, radix: 16) else {
      throw scanner.failure(.invalidValue("\"\(text)\" is not a hexadecimal address like \"0x7f3a10\""), at: start)
    }
    return value
  }

  private mutating func readNonNegative() throws(SnapshotDecodingError) -> Int64? {
    let start = scanner.valueStart()
    guard let value = try scanner.readOptionalInteger() else { return nil }
    guard value >= 0 else { throw scanner.failure(.invalidValue("\(value) is negative; expected 0 or more"), at: start) }
    return value
  }

  // MARK: - Resolving ids

  private func failure(_ storage: SnapshotDecodingError.Storage, path: String, at offset: Int) -> SnapshotDecodingError {
    SnapshotDecodingError(storage, at: scanner.location(at: offset, path: path))
  }

  private mutating func resolve() throws(SnapshotDecodingError) {
    let objectIndex: ObjectIDIndex
    do {
      objectIndex = try ObjectIDIndex(ids: snapshot.objectIDs)
    } catch let duplicate {
      throw failure(
        .duplicateObjectID(snapshot.objectIDs[duplicate.index], firstIndex: duplicate.firstIndex),
        path: "objects[\(duplicate.index)].id", at: objectOffsets[duplicate.index])
    }

    var stackIndexByID: [Int64: Int32] = [:]
    for (index, stack) in snapshot.stacks.enumerated() {
      if let first = stackIndexByID[stack.id] {
        throw failure(.duplicateStackID(stack.id, firstIndex: Int(first)), path: "stacks[\(index)].id", at: stackOffsets[index])
      }
      stackIndexByID[stack.id] = Int32(index)
    }
    for (index, stackID) in objectStackIDs.enumerated() where stackID != Int64.min {
      guard let stackIndex = stackIndexByID[stackID] else {
        throw failure(.unknownStack(stackID), path: "objects[\(index)].stack", at: objectOffsets[index])
      }
      snapshot.objectStacks[index] = stackIndex
    }

    for index in rawSources.indices {
      guard let source = objectIndex[rawSources[index]] else {
        throw failure(.unknownObject(rawSources[index]), path: "references[\(index)].from", at: referenceOffsets[index])
      }
      guard let target = objectIndex[rawTargets[index]] else {
        throw failure(.unknownObject(rawTargets[index]), path: "references[\(index)].to", at: referenceOffsets[index])
      }
      snapshot.referenceSources[index] = source
      snapshot.referenceTargets[index] = target
    }
    for (index, root) in rawRoots.enumerated() where objectIndex[root.object] == nil {
      throw failure(.unknownObject(root.object), path: "roots[\(index)].object", at: root.offset)
    }
  }
}
