extension HeapSnapshot {
  /// Reads a snapshot in the JSON format, version 1.
  ///
  /// Unknown fields are ignored, and so is an object `kind` this version does not know (the
  /// object's kind is then unknown, as when the field is absent). Every problem (invalid or
  /// truncated JSON, a missing or mistyped field, a duplicate id, a reference to a missing
  /// object, an unknown ownership, an unsupported version) throws a ``SnapshotDecodingError`` that names the record and the byte
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
    var reader = SnapshotJSONReader(scanner: JSONScanner(bytes: jsonBuffer))
    self = try reader.read()
  }

  /// Reads a snapshot in the JSON format from `input` as it reads the file, holding a window of
  /// a megabyte or two of it beside the columns instead of the whole file. It gives the snapshot
  /// ``init(jsonBytes:)`` gives for the same bytes.
  ///
  /// It reads a snapshot whose `objects` come before its `references` (as every writer of this
  /// library writes them), resolving each reference as it is read. Its error is only that the
  /// file could not be read this way (another order, or any problem): its place may be wrong,
  /// and the caller reads the file whole with ``init(jsonBytes:)`` for the error to report.
  package init(streamingJSON input: FileInput) throws(SnapshotDecodingError) {
    var reader = SnapshotJSONReader(scanner: JSONScanner(streaming: input))
    self = try reader.read()
    if reader.scanner.streamReadFailed { throw SnapshotDecodingError(.empty, at: nil) }
  }

  /// ``init(streamingJSON:)`` for Benchmarks/SnapshotReadBench, which times reading a file as
  /// the tool reads it. The benchmarks are a package of their own, which sees only public
  /// declarations, and this is not API: a program reaches it only with
  /// `@_spi(Internals) import HeapGraph`, and it is not in the documentation.
  @_spi(Internals)
  public static func readStreamingJSON(_ input: FileInput) throws(SnapshotDecodingError) -> HeapSnapshot {
    try HeapSnapshot(streamingJSON: input)
  }
}

/// The state of one read: the snapshot under construction and the raw ids still to resolve.
///
/// A read of a whole buffer keeps each record's offset and resolves ids at the end, so that
/// every error names its place and the first problem in the file is the one reported. A
/// streaming read keeps no offsets and resolves each reference as it is read, against the
/// objects read before it.
private struct SnapshotJSONReader: JSONRecordReading {
  var scanner: JSONScanner
  var snapshot = HeapSnapshot(metadata: .init())

  var objectOffsets: [Int] = []
  /// Stack ids that ``HeapSnapshot/objectStacks`` cannot hold until they are resolved (those
  /// outside `0..<Int32.max`), by object index; the column holds ``wideStackID`` for them.
  var wideStackIDs: [Int: Int64] = [:]
  var referenceOffsets: [Int] = []
  var rawSources: [Int64] = []
  var rawTargets: [Int64] = []
  var rawRoots: [(object: Int64, offset: Int)] = []
  var stackOffsets: [Int] = []
  /// A streaming read's index of the objects, made when the objects have been read.
  var objectIndex: ObjectIDIndex?

  /// What the stack column holds for an object without a stack, and for one whose stack id is
  /// in ``wideStackIDs``, until the ids are resolved.
  static let noStack: Int32 = -1
  static let wideStackID: Int32 = -2

  init(scanner: JSONScanner) {
    self.scanner = scanner
  }

  mutating func read() throws(SnapshotDecodingError) -> HeapSnapshot {
    guard scanner.bytes.count > 0 else { throw SnapshotDecodingError(.empty, at: nil) }
    scanner.skipByteOrderMark()
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

  // MARK: - Top level

  private mutating func readTopLevel() throws(SnapshotDecodingError) {
    let start = scanner.position
    var seenFormat = false
    var seenVersion = false
    var seenObjects = false
    var seenReferences = false
    try forEachMember { reader, key throws(SnapshotDecodingError) in
      if key.equals("format") {
        let valueStart = reader.scanner.valueStart()
        let format = try reader.scanner.readString()
        guard format == HeapSnapshot.formatName else {
          throw reader.scanner.failure(.notASnapshot(found: "\"\(format)\""), at: valueStart)
        }
        seenFormat = true
      } else if key.equals("version") {
        let valueStart = reader.scanner.valueStart()
        let version = try reader.scanner.readInteger()
        guard let version = Int(exactly: version), HeapSnapshot.supportedVersions.contains(version) else {
          throw reader.scanner.failure(
            .unsupportedVersion(found: Int(clamping: version), supported: HeapSnapshot.supportedVersions), at: valueStart)
        }
        seenVersion = true
      } else if key.equals("metadata") {
        try reader.readMetadata()
      } else if key.equals("objects") {
        // A streaming read resolves references against the objects read before them: once only.
        if reader.scanner.isStreaming && seenObjects { throw reader.scanner.failure(.syntax("a second objects array")) }
        try reader.forEachElement("an array of records") { reader, _ throws(SnapshotDecodingError) in try reader.readObject() }
        seenObjects = true
        if reader.scanner.isStreaming {
          do {
            reader.objectIndex = try ObjectIDIndex(ids: reader.snapshot.objectIDs)
          } catch {
            throw reader.scanner.failure(.syntax("a duplicate object id"))
          }
        }
      } else if key.equals("references") {
        try reader.forEachElement("an array of records") { reader, _ throws(SnapshotDecodingError) in try reader.readReference() }
        seenReferences = true
      } else if key.equals("roots") {
        try reader.forEachElement("an array of records") { reader, _ throws(SnapshotDecodingError) in try reader.readRoot() }
      } else if key.equals("stacks") {
        try reader.forEachElement("an array of records") { reader, _ throws(SnapshotDecodingError) in try reader.readStack() }
      } else {
        try reader.scanner.skipValue()
      }
    }
    try scanner.expectEnd(after: "the snapshot object")
    for (seen, name) in [(seenFormat, "format"), (seenVersion, "version"), (seenObjects, "objects"), (seenReferences, "references")]
    where !seen {
      throw scanner.failure(.missingField(name), at: start)
    }
  }

  private mutating func readMetadata() throws(SnapshotDecodingError) {
    if try scanner.consumeNull() { return }
    let start = scanner.position
    var messages: [String] = []
    var records: [CaptureDiagnostic]?
    try forEachMember { reader, key throws(SnapshotDecodingError) in
      if key.equals("tool") {
        reader.snapshot.metadata.tool = try reader.scanner.readOptionalString()
      } else if key.equals("createdAt") {
        reader.snapshot.metadata.createdAt = try reader.scanner.readOptionalString()
      } else if key.equals("process") {
        reader.snapshot.metadata.process = try reader.scanner.readOptionalString()
      } else if key.equals("processID") {
        reader.snapshot.metadata.processID = try reader.readProcessID()
      } else if key.equals("arguments") {
        var arguments: [String] = []
        try reader.forEachElement("an array of strings") { reader, _ throws(SnapshotDecodingError) in
          arguments.append(try reader.scanner.readString())
        }
        reader.snapshot.metadata.arguments = arguments
      } else if key.equals("captureMilliseconds") {
        reader.snapshot.metadata.captureMilliseconds = try reader.readNonNegative().map { Int($0) }
      } else if key.equals("diagnostics") {
        try reader.forEachElement("an array of strings") { reader, _ throws(SnapshotDecodingError) in
          messages.append(try reader.scanner.readString())
        }
      } else if key.equals("diagnosticRecords") {
        var read: [CaptureDiagnostic] = []
        try reader.forEachElement("an array of records") { reader, _ throws(SnapshotDecodingError) in
          read.append(try reader.readDiagnosticRecord())
        }
        records = read
      } else if key.equals("memory") {
        reader.snapshot.metadata.memory = try reader.readMemory()
      } else {
        try reader.scanner.skipValue()
      }
    }
    guard var records else {
      snapshot.metadata.diagnosticRecords = messages.map { CaptureDiagnostic(message: $0) }
      return
    }
    guard records.count == messages.count else {
      throw scanner.failure(
        .invalidValue(
          "diagnosticRecords has \(records.count) records for \(messages.count) diagnostics; it must have one per entry of diagnostics, in the same order"
        ),
        at: start)
    }
    for index in records.indices { records[index].message = messages[index] }
    snapshot.metadata.diagnosticRecords = records
  }

  /// An entry of `metadata.diagnosticRecords`: a diagnostic's kind and fields, its message
  /// still empty (it is the entry of `diagnostics` at the same place).
  private mutating func readDiagnosticRecord() throws(SnapshotDecodingError) -> CaptureDiagnostic {
    var diagnostic = CaptureDiagnostic(message: "")
    try forEachMember("a diagnostic record") { reader, key throws(SnapshotDecodingError) in
      if key.equals("kind") {
        diagnostic.kind = try reader.scanner.readOptionalString().map(CaptureDiagnostic.Kind.init(rawValue:))
      } else if key.equals("type") {
        diagnostic.typeName = try reader.scanner.readOptionalString()
      } else if key.equals("address") {
        diagnostic.address = try reader.readAddress()
      } else if key.equals("count") {
        diagnostic.count = try reader.readNonNegative().map { Int($0) }
      } else {
        try reader.scanner.skipValue()
      }
    }
    return diagnostic
  }

  /// `metadata.memory`: the fields of ``ProcessMemory/fields`` it has, each an integer ≥ 0 or
  /// `null`; `null` for the whole is no memory recorded.
  /// A process id: a positive integer that fits 32 bits, or `null`.
  private mutating func readProcessID() throws(SnapshotDecodingError) -> Int32? {
    let start = scanner.valueStart()
    guard let value = try scanner.readOptionalInteger() else { return nil }
    guard let processID = Int32(exactly: value), processID > 0 else {
      throw scanner.failure(.invalidValue("\(value) is not a process id; expected a positive 32-bit integer"), at: start)
    }
    return processID
  }

  private mutating func readMemory() throws(SnapshotDecodingError) -> ProcessMemory? {
    if try scanner.consumeNull() { return nil }
    var memory = ProcessMemory()
    try forEachMember("a memory record (an object of byte sizes and counts)") { reader, key throws(SnapshotDecodingError) in
      guard let field = ProcessMemory.fields.first(where: { key.equals($0.name) }) else {
        return try reader.scanner.skipValue()
      }
      memory[keyPath: field.value] = try reader.readNonNegative().map { Int($0) }
    }
    return memory
  }

  // MARK: - Records

  private mutating func readObject() throws(SnapshotDecodingError) {
    let start = scanner.position
    var id: Int64?
    // The type as its index when the table has it already, else as text.
    var typeIndex: Int32?
    var type: String?
    var address: UInt64 = 0
    var size: Int64 = -1
    var generation = Int64.min
    var stackID = Int64.min
    var kind: ObjectKind?
    try forEachMember("an object record") { reader, key throws(SnapshotDecodingError) in
      if key.equals("id") {
        id = try reader.scanner.readInteger()
      } else if key.equals("type") {
        let valueStart = reader.scanner.valueStart()
        (typeIndex, type) = (nil, nil)
        switch try reader.scanner.readStringToken() {
        case .plain(let text) where !text.isEmpty:
          typeIndex = reader.snapshot.typeNames.index(ofUTF8: text)
          if typeIndex == nil { type = String(decoding: text, as: UTF8.self) }
        case .decoded(let value) where !value.isEmpty: type = value
        default: throw reader.scanner.failure(.invalidValue("the type name is empty"), at: valueStart)
        }
      } else if key.equals("address") {
        address = try reader.readAddress() ?? 0
      } else if key.equals("size") {
        size = try reader.readNonNegative() ?? -1
      } else if key.equals("generation") {
        generation = try reader.scanner.readOptionalInteger() ?? Int64.min
      } else if key.equals("stack") {
        stackID = try reader.scanner.readOptionalInteger() ?? Int64.min
      } else if key.equals("kind") {
        // A kind this version does not know (a later one may add kinds) is read as unknown.
        kind = try reader.scanner.readOptionalString("a string (\"class\", \"closure\" or \"box\") or null")
          .flatMap(ObjectKind.init(rawValue:))
      } else {
        try reader.scanner.skipValue()
      }
    }
    guard let id else { throw scanner.failure(.missingField("id"), at: start) }
    guard typeIndex != nil || type != nil else { throw scanner.failure(.missingField("type"), at: start) }
    if !scanner.isStreaming { objectOffsets.append(start) }
    let stackColumn: Int32
    if stackID == Int64.min {
      stackColumn = Self.noStack
    } else if stackID >= 0 && stackID < Int64(Int32.max) {
      stackColumn = Int32(stackID)
    } else {
      stackColumn = Self.wideStackID
      wideStackIDs[snapshot.objectCount] = stackID
    }
    // Interned only now: a repeated key's earlier value (the last one wins) must not be left in
    // the table, which holds exactly the strings in use, in order of first use, as a builder's
    // does (snapshots with the same contents compare equal).
    snapshot.appendObject(
      id: id, typeIndex: typeIndex ?? snapshot.typeNames.intern(type!), address: address, size: size, generation: generation,
      stackIndex: stackColumn, kind: kind)
  }

  private mutating func readReference() throws(SnapshotDecodingError) {
    let start = scanner.position
    var from: Int64?
    var to: Int64?
    // The label as its index when the table has it already, else as text; neither for none.
    var labelIndex: Int32?
    var label: String?
    var ownership: Ownership?
    try forEachMember("a reference record") { reader, key throws(SnapshotDecodingError) in
      if key.equals("from") {
        from = try reader.scanner.readInteger("an object id (integer)")
      } else if key.equals("to") {
        to = try reader.scanner.readInteger("an object id (integer)")
      } else if key.equals("label") {
        (labelIndex, label) = (nil, nil)
        guard try !reader.scanner.consumeNull() else { return }
        switch try reader.scanner.readStringToken("a string or null") {
        case .plain(let text):
          labelIndex = reader.snapshot.labels.index(ofUTF8: text)
          if labelIndex == nil { label = String(decoding: text, as: UTF8.self) }
        case .decoded(let value): label = value
        }
      } else if key.equals("ownership") {
        let valueStart = reader.scanner.valueStart()
        let value: String
        switch try reader.scanner.readStringToken("one of \"strong\", \"weak\", \"unowned\", \"unmanaged\"") {
        case .plain(let text):
          if text.equals("strong") {
            ownership = .strong
            return
          }
          if text.equals("weak") {
            ownership = .weak
            return
          }
          value = String(decoding: text, as: UTF8.self)
        case .decoded(let decoded): value = decoded
        }
        guard let parsed = Ownership(rawValue: value) else {
          throw reader.scanner.failure(.unknownOwnership(value), at: valueStart)
        }
        ownership = parsed
      } else {
        try reader.scanner.skipValue()
      }
    }
    guard let from else { throw scanner.failure(.missingField("from"), at: start) }
    guard let to else { throw scanner.failure(.missingField("to"), at: start) }
    guard let ownership else { throw scanner.failure(.missingField("ownership"), at: start) }
    var source: Int32 = -1
    var target: Int32 = -1
    if scanner.isStreaming {
      guard let objectIndex else { throw scanner.failure(.syntax("references before objects")) }
      guard let resolvedSource = objectIndex[from] else { throw scanner.failure(.unknownObject(from)) }
      guard let resolvedTarget = objectIndex[to] else { throw scanner.failure(.unknownObject(to)) }
      (source, target) = (resolvedSource, resolvedTarget)
    } else {
      referenceOffsets.append(start)
      rawSources.append(from)
      rawTargets.append(to)
    }
    // Interned only now, as the type of an object is.
    snapshot.appendReference(
      source: source, target: target, labelIndex: labelIndex ?? label.map { snapshot.labels.intern($0) } ?? -1, ownership: ownership)
  }

  private mutating func readRoot() throws(SnapshotDecodingError) {
    let start = scanner.position
    var object: Int64?
    var kind = RootKind.unknown
    var label: String?
    try forEachMember("a root record") { reader, key throws(SnapshotDecodingError) in
      if key.equals("object") {
        object = try reader.scanner.readInteger("an object id (integer)")
      } else if key.equals("kind") {
        kind = try reader.scanner.readOptionalString().map(RootKind.init(rawValue:)) ?? .unknown
      } else if key.equals("label") {
        label = try reader.scanner.readOptionalString()
      } else {
        try reader.scanner.skipValue()
      }
    }
    guard let object else { throw scanner.failure(.missingField("object"), at: start) }
    rawRoots.append((object, start))
    snapshot.roots.append(HeapSnapshot.Root(object: object, kind: kind, label: label))
  }

  private mutating func readStack() throws(SnapshotDecodingError) {
    let start = scanner.position
    var id: Int64?
    var frames: [StackFrame]?
    try forEachMember("a stack record") { reader, key throws(SnapshotDecodingError) in
      if key.equals("id") {
        id = try reader.scanner.readInteger()
      } else if key.equals("frames") {
        frames = try reader.readFrames()
      } else {
        try reader.scanner.skipValue()
      }
    }
    guard let id else { throw scanner.failure(.missingField("id"), at: start) }
    guard let frames else { throw scanner.failure(.missingField("frames"), at: start) }
    if !scanner.isStreaming { stackOffsets.append(start) }
    snapshot.stacks.append(HeapSnapshot.Stack(id: id, frames: frames))
  }

  private mutating func readFrames() throws(SnapshotDecodingError) -> [StackFrame] {
    var frames: [StackFrame] = []
    try forEachElement("an array of frames") { reader, _ throws(SnapshotDecodingError) in
      var frame = StackFrame()
      try reader.forEachMember("a frame record") { reader, key throws(SnapshotDecodingError) in
        if key.equals("pc") {
          frame.pc = try reader.readAddress()
        } else if key.equals("symbol") {
          frame.symbol = try reader.scanner.readOptionalString()
        } else if key.equals("file") {
          frame.file = try reader.scanner.readOptionalString()
        } else if key.equals("line") {
          frame.line = try reader.readNonNegative().map { Int($0) }
        } else if key.equals("column") {
          frame.column = try reader.readNonNegative().map { Int($0) }
        } else if key.equals("inlined") {
          frame.inlined = try reader.scanner.readBoolean()
        } else {
          try reader.scanner.skipValue()
        }
      }
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
    let text: String
    switch try scanner.readStringToken(expected) {
    case .plain(let plain):
      if let value = Self.hexAddress(plain) { return value }
      text = String(decoding: plain, as: UTF8.self)
    case .decoded(let decoded): text = decoded
    }
    var digits = Substring(text)
    if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
    guard !digits.isEmpty, digits.count <= 16, let value = UInt64(digits, radix: 16) else {
      throw scanner.failure(.invalidValue("\"\(text)\" is not a hexadecimal address like \"0x7f3a10\""), at: start)
    }
    return value
  }

  /// The value of `0x7f3a10`, `0X7F3A10` or `7f3a10` (1 to 16 hex digits), or `nil` for
  /// anything else (which the text path then names).
  private static func hexAddress(_ text: UnsafeBufferPointer<UInt8>) -> UInt64? {
    var digits = text[...]
    if digits.count >= 2, digits[digits.startIndex] == UInt8(ascii: "0"),
      digits[digits.startIndex + 1] | 0x20 == UInt8(ascii: "x")
    {
      digits = digits.dropFirst(2)
    }
    guard (1...16).contains(digits.count) else { return nil }
    var value: UInt64 = 0
    for byte in digits {
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: return nil
      }
      value = value << 4 | UInt64(digit)
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

  /// An error found after parsing, with its full record path spelled out.
  private func failure(_ storage: SnapshotDecodingError.Storage, path: String, at offset: Int) -> SnapshotDecodingError {
    SnapshotDecodingError(storage, at: SnapshotLocation(path: path, byteOffset: offset, in: scanner.bytes))
  }

  /// The offset of record `index` of `offsets`; 0 in a streaming read, which keeps none.
  private func offset(_ offsets: [Int], _ index: Int) -> Int {
    index < offsets.count ? offsets[index] : 0
  }

  private mutating func resolve() throws(SnapshotDecodingError) {
    let objectIndex: ObjectIDIndex
    if let streamingIndex = self.objectIndex {
      objectIndex = streamingIndex
    } else {
      do {
        objectIndex = try ObjectIDIndex(ids: snapshot.objectIDs)
      } catch let duplicate {
        throw failure(
          .duplicateObjectID(snapshot.objectIDs[duplicate.index], firstIndex: duplicate.firstIndex),
          path: "objects[\(duplicate.index)].id", at: offset(objectOffsets, duplicate.index))
      }
    }

    var stackIndexByID: [Int64: Int32] = [:]
    for (index, stack) in snapshot.stacks.enumerated() {
      if let first = stackIndexByID[stack.id] {
        throw failure(
          .duplicateStackID(stack.id, firstIndex: Int(first)), path: "stacks[\(index)].id", at: offset(stackOffsets, index))
      }
      stackIndexByID[stack.id] = Int32(index)
    }
    for index in snapshot.objectStacks.indices where snapshot.objectStacks[index] != Self.noStack {
      let column = snapshot.objectStacks[index]
      let stackID = column == Self.wideStackID ? wideStackIDs[index]! : Int64(column)
      guard let stackIndex = stackIndexByID[stackID] else {
        throw failure(.unknownStack(stackID), path: "objects[\(index)].stack", at: offset(objectOffsets, index))
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
