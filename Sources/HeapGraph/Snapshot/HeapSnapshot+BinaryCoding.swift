extension HeapSnapshot {
  private static let binaryMagic: UInt32 = 0x534C_4442  // "SLDB"
  private static let binaryVersion: UInt32 = 1

  /// The snapshot in a compact binary form, for handing a capture from a capture process to its
  /// parent on the same machine: its columns as they are in memory, so that writing and reading
  /// cost about a copy. Not a file format (files are JSON, ``jsonBytes()``): the layout may
  /// change with any release.
  package func binaryBytes() -> [UInt8] {
    var writer = BinaryWriter(reservingCapacity: 256 + objectCount * 45 + referenceCount * 13)
    write(into: &writer)
    return writer.bytes
  }

  /// Appends what ``binaryBytes()`` returns to `writer`, after whatever the caller wrote first.
  package func write(into writer: inout BinaryWriter) {
    writer.integer(Self.binaryMagic)
    writer.integer(Self.binaryVersion)
    writer.optionalString(metadata.tool)
    writer.optionalString(metadata.createdAt)
    writer.optionalString(metadata.process)
    writeStrings(metadata.diagnostics, into: &writer)
    writeStrings(typeNames.strings, into: &writer)
    writeStrings(labels.strings, into: &writer)
    writer.array(objectIDs)
    writer.array(objectTypes)
    writer.array(objectAddresses)
    writer.array(objectSizes)
    writer.array(objectGenerations)
    writer.array(objectStacks)
    writer.array(objectKinds.map(Self.kindCode))
    writer.array(referenceSources)
    writer.array(referenceTargets)
    writer.array(referenceLabels)
    writer.array(referenceOwnerships.map(Self.ownershipCode))
    writer.integer(Int64(roots.count))
    for root in roots {
      writer.integer(root.object)
      writer.string(root.kind.rawValue)
      writer.optionalString(root.label)
    }
    writer.integer(Int64(stacks.count))
    for stack in stacks {
      writer.integer(stack.id)
      writer.integer(Int64(stack.frames.count))
      for frame in stack.frames {
        writer.integer(frame.pc ?? 0)
        writer.optionalString(frame.symbol)
        writer.optionalString(frame.file)
        writer.integer(Int64(frame.line ?? -1))
        writer.integer(Int64(frame.column ?? -1))
      }
    }
  }

  /// Reads what ``binaryBytes()`` wrote, checking every count and index, so that a truncated or
  /// corrupt buffer is an error.
  package init(binaryBytes bytes: [UInt8]) throws(BinaryDecodingError) {
    var reader = BinaryReader(bytes)
    try self.init(reading: &reader)
    try reader.expectEnd(after: "the snapshot")
  }

  /// Reads a snapshot that ``write(into:)`` appended, leaving `reader` after it.
  package init(reading reader: inout BinaryReader) throws(BinaryDecodingError) {
    guard try reader.integer(UInt32.self) == Self.binaryMagic, try reader.integer(UInt32.self) == Self.binaryVersion else {
      throw BinaryDecodingError(message: "not a binary heap snapshot of this version")
    }
    self.init(
      metadata: Metadata(
        tool: try reader.optionalString(), createdAt: try reader.optionalString(), process: try reader.optionalString(),
        diagnostics: try Self.readStrings(&reader)))
    for name in try Self.readStrings(&reader) { _ = typeNames.intern(name) }
    for label in try Self.readStrings(&reader) { _ = labels.intern(label) }
    objectIDs = try reader.array()
    objectTypes = try reader.array()
    objectAddresses = try reader.array()
    objectSizes = try reader.array()
    objectGenerations = try reader.array()
    objectStacks = try reader.array()
    let kindCodes: [UInt8] = try reader.array()
    referenceSources = try reader.array()
    referenceTargets = try reader.array()
    referenceLabels = try reader.array()
    let ownershipCodes: [UInt8] = try reader.array()
    let objects = objectIDs.count
    guard [objectTypes.count, objectAddresses.count, objectSizes.count, objectGenerations.count, objectStacks.count, kindCodes.count]
      .allSatisfy({ $0 == objects }),
      [referenceTargets.count, referenceLabels.count, ownershipCodes.count].allSatisfy({ $0 == referenceSources.count })
    else {
      throw BinaryDecodingError(message: "columns of different lengths")
    }
    objectKinds = try kindCodes.map { code throws(BinaryDecodingError) in
      guard Int(code) <= Self.kinds.count else { throw BinaryDecodingError(message: "an unknown object kind \(code)") }
      return code == 0 ? nil : Self.kinds[Int(code) - 1]
    }
    referenceOwnerships = try ownershipCodes.map { code throws(BinaryDecodingError) in
      guard Int(code) < Self.ownerships.count else { throw BinaryDecodingError(message: "an unknown ownership \(code)") }
      return Self.ownerships[Int(code)]
    }
    let rootCount = try reader.count(ofItemsOfAtLeast: 17, "roots")
    for _ in 0..<rootCount {
      roots.append(Root(object: try reader.integer(), kind: RootKind(rawValue: try reader.string()), label: try reader.optionalString()))
    }
    let stackCount = try reader.count(ofItemsOfAtLeast: 16, "stacks")
    for _ in 0..<stackCount {
      let id: Int64 = try reader.integer()
      let frameCount = try reader.count(ofItemsOfAtLeast: 26, "frames")
      var frames: [StackFrame] = []
      frames.reserveCapacity(frameCount)
      for _ in 0..<frameCount {
        let pc: UInt64 = try reader.integer()
        let symbol = try reader.optionalString()
        let file = try reader.optionalString()
        let line: Int64 = try reader.integer()
        let column: Int64 = try reader.integer()
        frames.append(
          StackFrame(
            pc: pc == 0 ? nil : pc, symbol: symbol, file: file, line: line < 0 ? nil : Int(line),
            column: column < 0 ? nil : Int(column)))
      }
      stacks.append(Stack(id: id, frames: frames))
    }
    try checkIndices()
  }

  /// Every index the columns hold names an existing string, object or stack, and every root an
  /// existing object: what the rest of the library relies on.
  private func checkIndices() throws(BinaryDecodingError) {
    let objects = Int32(objectIDs.count)
    guard objectTypes.allSatisfy({ $0 >= 0 && $0 < Int32(typeNames.count) }),
      objectStacks.allSatisfy({ $0 >= -1 && $0 < Int32(stacks.count) }),
      referenceSources.allSatisfy({ $0 >= 0 && $0 < objects }), referenceTargets.allSatisfy({ $0 >= 0 && $0 < objects }),
      referenceLabels.allSatisfy({ $0 >= -1 && $0 < Int32(labels.count) })
    else {
      throw BinaryDecodingError(message: "an index out of range")
    }
    let ids = Set(objectIDs)
    guard ids.count == objectIDs.count, roots.allSatisfy({ ids.contains($0.object) }),
      Set(stacks.map(\.id)).count == stacks.count
    else {
      throw BinaryDecodingError(message: "a duplicate id, or a root of an unknown object")
    }
  }

  private static let kinds = ObjectKind.allCases
  private static let ownerships = Ownership.allCases

  private static func kindCode(_ kind: ObjectKind?) -> UInt8 {
    kind.map { UInt8(kinds.firstIndex(of: $0)! + 1) } ?? 0
  }

  private static func ownershipCode(_ ownership: Ownership) -> UInt8 {
    UInt8(ownerships.firstIndex(of: ownership)!)
  }

  private func writeStrings(_ strings: [String], into writer: inout BinaryWriter) {
    writer.integer(Int64(strings.count))
    for string in strings { writer.string(string) }
  }

  private static func readStrings(_ reader: inout BinaryReader) throws(BinaryDecodingError) -> [String] {
    let count = try reader.count(ofItemsOfAtLeast: 8, "strings")
    var strings: [String] = []
    strings.reserveCapacity(count)
    for _ in 0..<count { strings.append(try reader.string()) }
    return strings
  }
}
