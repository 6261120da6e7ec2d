extension HeapSnapshot {
  private static let binaryMagic: UInt32 = 0x534C_4442  // the bytes "BDLS"
  /// The binary encodings this library reads: version 2 adds the diagnostics' records after
  /// their sentences, version 3 the process's memory after them, version 4 writes each distinct
  /// frame once, in a table the stacks index (a test suite's stacks share most of their frames:
  /// hummingbird's exit capture holds 188,000 frames, 1,989 of them distinct), and says whether
  /// the memory is there; version 5 adds the process's id, command line and capture time;
  /// version 6 marks each frame of the table inlined or not (``StackFrame/inlined``). Each is
  /// written only for a snapshot that needs it, so that a snapshot without records, memory,
  /// frames, process fields or inlined frames reads in every reader of version 1.
  private static let binaryVersions: ClosedRange<UInt32> = 1...6

  /// How a snapshot file is encoded.
  public enum FileEncoding: String, Sendable, CaseIterable {
    /// The snapshot format (version 1): the interchange format, documented by a JSON schema.
    case json
    /// The binary encoding of the same content: the columns as they are in memory, about a
    /// quarter of the JSON's size and read at about the speed of a copy.
    case binary
  }

  /// From how many objects writers that choose an encoding choose ``FileEncoding/binary``.
  public static let binaryEncodingThreshold = 100_000

  /// The encoding a writer that chooses by size uses for this snapshot: JSON, which people and
  /// other tools read, unless it has ``binaryEncodingThreshold`` objects or more.
  public var encodingChosenBySize: FileEncoding {
    objectCount >= Self.binaryEncodingThreshold ? .binary : .json
  }

  /// The snapshot as a file in `encoding` (by default the one ``encodingChosenBySize`` names).
  public func fileBytes(_ encoding: FileEncoding? = nil) -> [UInt8] {
    switch encoding ?? encodingChosenBySize {
    case .json: jsonBytes()
    case .binary: binaryBytes()
    }
  }

  /// The encoding of a snapshot file's bytes, told by its first bytes: binary snapshots start
  /// with `BDLS`, which no JSON text does.
  public static func encoding(of bytes: [UInt8]) -> FileEncoding {
    bytes.prefix(4).elementsEqual(withUnsafeBytes(of: binaryMagic.littleEndian, Array.init)) ? .binary : .json
  }

  /// The snapshot in its binary encoding (Documentation/SnapshotFormat.md, "Binary encoding"):
  /// little-endian columns, written and read at about the cost of a copy. Capture processes hand
  /// their capture to the parent this way, and big snapshot files are written this way.
  package func binaryBytes() -> [UInt8] {
    var writer = BinaryWriter(reservingCapacity: 256 + objectCount * 45 + referenceCount * 13)
    write(into: &writer)
    return writer.bytes
  }

  /// The lowest version of the binary encoding that holds everything this snapshot records
  /// (``binaryVersions``).
  private var binaryVersion: UInt32 {
    if stacks.contains(where: { $0.frames.contains(where: \.inlined) }) { return 6 }
    if metadata.hasProcessFields { return 5 }
    if stacks.contains(where: { !$0.frames.isEmpty }) { return 4 }
    if metadata.memory != nil { return 3 }
    return metadata.diagnosticRecords.contains(where: \.hasRecord) ? 2 : 1
  }

  /// Appends what ``binaryBytes()`` returns to `writer`, after whatever the caller wrote first.
  package func write(into writer: inout BinaryWriter) {
    let version = binaryVersion
    writer.integer(Self.binaryMagic)
    writer.integer(version)
    writer.optionalString(metadata.tool)
    writer.optionalString(metadata.createdAt)
    writer.optionalString(metadata.process)
    writeStrings(metadata.diagnostics, into: &writer)
    if version >= 2 { writeRecords(of: metadata.diagnosticRecords, into: &writer) }
    if version >= 4 { writer.integer(UInt8(metadata.memory == nil ? 0 : 1)) }
    if version >= 3, let memory = metadata.memory { Self.write(memory, into: &writer) }
    if version >= 5 { writeProcessFields(into: &writer) }
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
    if version >= 4 {
      writeStacksIndexingFrames(withInlineFlags: version >= 6, into: &writer)
    } else {
      writer.integer(Int64(stacks.count))
      for stack in stacks {
        writer.integer(stack.id)
        Self.write(stack.frames, withInlineFlags: false, into: &writer)
      }
    }
  }

  /// Writes each distinct frame once, then each stack as its id and the positions of its frames
  /// in that table (version 4), each frame with its inlined flag from version 6.
  private func writeStacksIndexingFrames(withInlineFlags: Bool, into writer: inout BinaryWriter) {
    var table: [StackFrame] = []
    // A frame is found by its pc: the frames of one pc are almost always one frame, and the
    // others (a closure's frame renamed) are looked up in full.
    var positionByPC: [UInt64: Int32] = [:]
    var otherPositions: [StackFrame: Int32] = [:]
    var positions: [Int32] = []
    positions.reserveCapacity(stacks.reduce(0) { $0 + $1.frames.count })
    for stack in stacks {
      for frame in stack.frames {
        let pc = frame.pc ?? 0
        if let position = positionByPC[pc], table[Int(position)] == frame {
          positions.append(position)
        } else if let position = otherPositions[frame] {
          positions.append(position)
        } else {
          let position = Int32(table.count)
          table.append(frame)
          if positionByPC[pc] == nil { positionByPC[pc] = position } else { otherPositions[frame] = position }
          positions.append(position)
        }
      }
    }
    Self.write(table, withInlineFlags: withInlineFlags, into: &writer)
    writer.integer(Int64(stacks.count))
    var next = 0
    for stack in stacks {
      writer.integer(stack.id)
      writer.integer(Int64(stack.frames.count))
      for position in positions[next..<(next + stack.frames.count)] { writer.integer(position) }
      next += stack.frames.count
    }
  }

  /// A count, then per frame: its pc (0 when unknown), symbol and file, line and column (-1 when
  /// unknown), and with `withInlineFlags` a byte that is 1 for an inlined frame, 0 otherwise.
  private static func write(_ frames: [StackFrame], withInlineFlags: Bool, into writer: inout BinaryWriter) {
    writer.integer(Int64(frames.count))
    for frame in frames {
      writer.integer(frame.pc ?? 0)
      writer.optionalString(frame.symbol)
      writer.optionalString(frame.file)
      writer.integer(Int64(frame.line ?? -1))
      writer.integer(Int64(frame.column ?? -1))
      if withInlineFlags { writer.integer(UInt8(frame.inlined ? 1 : 0)) }
    }
  }

  /// Reads a snapshot in the binary encoding (what ``fileBytes(_:)`` writes for
  /// ``FileEncoding/binary``), checking every count and index, so that a truncated or corrupt
  /// buffer is an error.
  ///
  /// ```swift
  /// let bytes = try FileBytes.read("heap.heapsnapshot")
  /// let snapshot = HeapSnapshot.encoding(of: bytes) == .binary
  ///   ? try HeapSnapshot(binaryBytes: bytes) : try HeapSnapshot(jsonBytes: bytes)
  /// ```
  public init(binaryBytes bytes: [UInt8]) throws(BinaryDecodingError) {
    var reader = BinaryReader(bytes)
    try self.init(reading: &reader)
    try reader.expectEnd(after: "the snapshot")
  }

  /// Reads a snapshot in the binary encoding from `input` as it reads the file: the columns are
  /// read into place, and nothing else of the file is held but a window of about a megabyte.
  /// Every count is checked against the file's length, as ``init(binaryBytes:)`` checks it
  /// against the buffer's.
  ///
  /// ```swift
  /// if let input = try FileInput(regularFileAt: "heap.heapsnapshot"),
  ///   HeapSnapshot.encoding(of: try input.peek(4)) == .binary {
  ///   let snapshot = try HeapSnapshot(binaryInput: input)
  /// }
  /// ```
  public init(binaryInput input: FileInput) throws(BinaryDecodingError) {
    var reader = BinaryReader(input)
    try self.init(reading: &reader)
    try reader.expectEnd(after: "the snapshot")
  }

  /// Reads a snapshot that ``write(into:)`` appended, leaving `reader` after it.
  package init(reading reader: inout BinaryReader) throws(BinaryDecodingError) {
    guard try reader.integer(UInt32.self) == Self.binaryMagic else {
      throw BinaryDecodingError(message: "not a binary heap snapshot (it does not start with BDLS)")
    }
    let version = try reader.integer(UInt32.self)
    guard Self.binaryVersions.contains(version) else {
      throw BinaryDecodingError(
        message:
          "binary snapshot version \(version) is not supported (this tool reads versions \(Self.binaryVersions.lowerBound) to \(Self.binaryVersions.upperBound))"
      )
    }
    self.init(
      metadata: Metadata(
        tool: try reader.optionalString(), createdAt: try reader.optionalString(), process: try reader.optionalString(),
        diagnostics: try Self.readStrings(&reader)))
    if version >= 2 { try Self.readRecords(into: &metadata.diagnosticRecords, from: &reader) }
    let hasMemory = version >= 4 ? try Self.readFlag(&reader, "the memory's presence") : version == 3
    if hasMemory { metadata.memory = try Self.readMemory(from: &reader) }
    if version >= 5 { try Self.readProcessFields(into: &metadata, from: &reader) }
    let names = try Self.readStrings(&reader)
    typeNames.reserveCapacity(names.count)
    for name in names { _ = typeNames.intern(name) }
    let labelStrings = try Self.readStrings(&reader)
    labels.reserveCapacity(labelStrings.count)
    for label in labelStrings { _ = labels.intern(label) }
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
    guard
      [objectTypes.count, objectAddresses.count, objectSizes.count, objectGenerations.count, objectStacks.count, kindCodes.count]
        .allSatisfy({ $0 == objects }),
      [referenceTargets.count, referenceLabels.count, ownershipCodes.count].allSatisfy({ $0 == referenceSources.count })
    else {
      throw BinaryDecodingError(
        message:
          "columns of different lengths before offset \(reader.position): every object column must have one entry per object id, every reference column one per reference source"
      )
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
    stacks =
      version >= 4
      ? try Self.readStacksIndexingFrames(&reader, withInlineFlags: version >= 6) : try Self.readStacks(&reader)
    try checkIndices()
  }

  /// Reads the stacks that ``write(into:)`` wrote last, each with its frames (versions 1 to 3).
  private static func readStacks(_ reader: inout BinaryReader) throws(BinaryDecodingError) -> [Stack] {
    var stacks: [Stack] = []
    let stackCount = try reader.count(ofItemsOfAtLeast: 16, "stacks")
    for _ in 0..<stackCount {
      let id: Int64 = try reader.integer()
      stacks.append(Stack(id: id, frames: try readFrames(&reader, withInlineFlags: false)))
    }
    return stacks
  }

  /// Reads the table of frames, then the stacks that index it (version 4; the frames' inlined
  /// flags from version 6).
  private static func readStacksIndexingFrames(_ reader: inout BinaryReader, withInlineFlags: Bool) throws(BinaryDecodingError)
    -> [Stack]
  {
    let table = try readFrames(&reader, withInlineFlags: withInlineFlags)
    var stacks: [Stack] = []
    let stackCount = try reader.count(ofItemsOfAtLeast: 16, "stacks")
    stacks.reserveCapacity(stackCount)
    for index in 0..<stackCount {
      let id: Int64 = try reader.integer()
      let frameCount = try reader.count(ofItemsOfAtLeast: 4, "frames")
      var frames: [StackFrame] = []
      frames.reserveCapacity(frameCount)
      for frame in 0..<frameCount {
        let position: Int32 = try reader.integer()
        guard position >= 0 && Int(position) < table.count else {
          throw BinaryDecodingError(
            message: "stacks[\(index)].frames[\(frame)]: index \(position) is out of range (there are \(table.count) frames)")
        }
        frames.append(table[Int(position)])
      }
      stacks.append(Stack(id: id, frames: frames))
    }
    return stacks
  }

  private static func readFrames(_ reader: inout BinaryReader, withInlineFlags: Bool) throws(BinaryDecodingError) -> [StackFrame] {
    let frameCount = try reader.count(ofItemsOfAtLeast: 26, "frames")
    var frames: [StackFrame] = []
    frames.reserveCapacity(frameCount)
    for _ in 0..<frameCount {
      let pc: UInt64 = try reader.integer()
      let symbol = try reader.optionalString()
      let file = try reader.optionalString()
      let line: Int64 = try reader.integer()
      let column: Int64 = try reader.integer()
      let inlined = withInlineFlags ? try readFlag(&reader, "a frame's inlined flag") : false
      frames.append(
        StackFrame(
          pc: pc == 0 ? nil : pc, symbol: symbol, file: file, line: line < 0 ? nil : Int(line),
          column: column < 0 ? nil : Int(column), inlined: inlined))
    }
    return frames
  }

  /// A byte that is 0 (no) or 1 (yes).
  private static func readFlag(_ reader: inout BinaryReader, _ name: String) throws(BinaryDecodingError) -> Bool {
    let byte = try reader.integer(UInt8.self)
    guard byte <= 1 else { throw BinaryDecodingError(message: "\(name): \(byte) is neither 0 nor 1") }
    return byte == 1
  }

  /// Every index the columns hold names an existing string, object or stack, and every root an
  /// existing object: what the rest of the library relies on.
  private func checkIndices() throws(BinaryDecodingError) {
    let objects = Int32(objectIDs.count)
    try Self.check(objectTypes, "object types", names: "type names", in: 0..<Int32(typeNames.count))
    try Self.check(objectStacks, "object stacks", names: "stacks", in: -1..<Int32(stacks.count))
    try Self.check(referenceSources, "reference sources", names: "objects", in: 0..<objects)
    try Self.check(referenceTargets, "reference targets", names: "objects", in: 0..<objects)
    try Self.check(referenceLabels, "reference labels", names: "labels", in: -1..<Int32(labels.count))
    let ids: ObjectIDIndex
    do {
      ids = try ObjectIDIndex(ids: objectIDs)
    } catch {
      throw BinaryDecodingError(message: "object ids[\(error.index)]: id \(objectIDs[error.index]) appears twice")
    }
    if let root = roots.firstIndex(where: { ids[$0.object] == nil }) {
      throw BinaryDecodingError(message: "roots[\(root)]: no object has id \(roots[root].object)")
    }
    var stackIDs = Set<Int64>()
    for (index, stack) in stacks.enumerated() where !stackIDs.insert(stack.id).inserted {
      throw BinaryDecodingError(message: "stacks[\(index)]: stack id \(stack.id) appears twice")
    }
  }

  /// Fails, naming the first offending entry, unless every index of `column` lies in `range`.
  private static func check(_ column: [Int32], _ name: String, names what: String, in range: Range<Int32>) throws(BinaryDecodingError) {
    if let index = column.firstIndex(where: { !range.contains($0) }) {
      throw BinaryDecodingError(
        message: "\(name)[\(index)]: index \(column[index]) is out of range (there are \(range.upperBound) \(what))")
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

  /// Writes the kind and fields of each diagnostic, in the order of their sentences: the kind
  /// and the type name as optional strings, the address (0 when unknown), the count (-1 when unknown).
  private func writeRecords(of diagnostics: [CaptureDiagnostic], into writer: inout BinaryWriter) {
    for diagnostic in diagnostics {
      writer.optionalString(diagnostic.kind?.rawValue)
      writer.optionalString(diagnostic.typeName)
      writer.integer(diagnostic.address ?? 0)
      writer.integer(Int64(diagnostic.count ?? -1))
    }
  }

  /// Reads what ``writeRecords(of:into:)`` wrote into the diagnostics read from their sentences.
  private static func readRecords(
    into diagnostics: inout [CaptureDiagnostic], from reader: inout BinaryReader
  ) throws(BinaryDecodingError) {
    for index in diagnostics.indices {
      diagnostics[index].kind = try reader.optionalString().map(CaptureDiagnostic.Kind.init(rawValue:))
      diagnostics[index].typeName = try reader.optionalString()
      let address: UInt64 = try reader.integer()
      let count: Int64 = try reader.integer()
      diagnostics[index].address = address == 0 ? nil : address
      diagnostics[index].count = count < 0 ? nil : Int(count)
    }
  }

  /// Writes the process's memory: a count of fields, then each field of ``ProcessMemory/fields``
  /// in order as an `Int64`, -1 when unknown.
  private static func write(_ memory: ProcessMemory, into writer: inout BinaryWriter) {
    writer.integer(Int64(ProcessMemory.fields.count))
    for field in ProcessMemory.fields { writer.integer(Int64(memory[keyPath: field.value] ?? -1)) }
  }

  /// Reads what ``write(_:into:)`` wrote; fields after those this version knows (a later
  /// version's) are skipped.
  private static func readMemory(from reader: inout BinaryReader) throws(BinaryDecodingError) -> ProcessMemory {
    let count = try reader.count(ofItemsOfAtLeast: 8, "memory fields")
    var memory = ProcessMemory()
    for index in 0..<count {
      let value: Int64 = try reader.integer()
      guard value >= -1 else {
        let name = index < ProcessMemory.fields.count ? "\(ProcessMemory.fields[index].name)" : "field \(index)"
        throw BinaryDecodingError(message: "metadata.memory.\(name): \(value) is negative; expected 0 or more, or -1 when unknown")
      }
      if index < ProcessMemory.fields.count, value >= 0 { memory[keyPath: ProcessMemory.fields[index].value] = Int(value) }
    }
    return memory
  }

  /// The process's id, command line and capture time (version 5): a byte of which are there
  /// (1 the id, 2 the command line, 4 the time), then those that are, in that order.
  private func writeProcessFields(into writer: inout BinaryWriter) {
    let present =
      (metadata.processID == nil ? 0 : 1) | (metadata.arguments == nil ? 0 : 2) | (metadata.captureMilliseconds == nil ? 0 : 4)
    writer.integer(UInt8(present))
    if let processID = metadata.processID { writer.integer(processID) }
    if let arguments = metadata.arguments { writeStrings(arguments, into: &writer) }
    if let milliseconds = metadata.captureMilliseconds { writer.integer(Int64(milliseconds)) }
  }

  /// Reads what ``writeProcessFields(into:)`` wrote.
  private static func readProcessFields(into metadata: inout Metadata, from reader: inout BinaryReader) throws(BinaryDecodingError) {
    let present: UInt8 = try reader.integer()
    guard present & ~7 == 0 else {
      throw BinaryDecodingError(message: "metadata: process fields flagged \(present); expected a combination of 1, 2 and 4")
    }
    if present & 1 != 0 { metadata.processID = try reader.integer(Int32.self) }
    if present & 2 != 0 { metadata.arguments = try readStrings(&reader) }
    if present & 4 != 0 {
      let milliseconds = try reader.integer(Int64.self)
      guard milliseconds >= 0, milliseconds <= Int64(Int32.max) else {
        throw BinaryDecodingError(message: "metadata.captureMilliseconds: \(milliseconds) is out of range; expected 0 or more")
      }
      metadata.captureMilliseconds = Int(milliseconds)
    }
  }

  private static func readStrings(_ reader: inout BinaryReader) throws(BinaryDecodingError) -> [String] {
    let count = try reader.count(ofItemsOfAtLeast: 8, "strings")
    var strings: [String] = []
    strings.reserveCapacity(count)
    for _ in 0..<count { strings.append(try reader.string()) }
    return strings
  }
}
