import HeapGraph

extension PprofProfile {
  /// A string index that names no entry of the string table.
  public struct BadStringIndex: Error, CustomStringConvertible {
    public var index: UInt64
    public var count: Int
    public var description: String { "string index \(index) is out of the table's \(count) strings" }
  }

  /// The profile a serialized `Profile` message holds (not gzipped), read field by field with
  /// ``ProtobufMessage`` by the numbers the encoder writes (`PprofField`): what a reader of
  /// pprof's files finds in it.
  public init(decoding bytes: [UInt8]) throws {
    let message = try ProtobufMessage(bytes)
    let table = message.strings(PprofField.Profile.stringTable)
    func string(_ index: UInt64) throws -> String {
      guard index < table.count else { throw BadStringIndex(index: index, count: table.count) }
      return table[Int(index)]
    }
    func valueType(_ message: ProtobufMessage) throws -> ValueType {
      ValueType(
        type: try string(message.integer(PprofField.ValueType.type)), unit: try string(message.integer(PprofField.ValueType.unit)))
    }
    self.init()
    sampleTypes = try message.messages(PprofField.Profile.sampleType).map(valueType)
    samples = try message.messages(PprofField.Profile.sample).map { sample in
      Sample(
        locationIDs: try sample.integers(PprofField.Sample.locationID),
        values: try sample.integers(PprofField.Sample.value).map { Int64(bitPattern: $0) },
        labels: try sample.messages(PprofField.Sample.label).map { label in
          var decoded = Label(
            key: try string(label.integer(PprofField.Label.key)), string: try string(label.integer(PprofField.Label.str)))
          decoded.number = label.signedInteger(PprofField.Label.num)
          decoded.numberUnit = try string(label.integer(PprofField.Label.numUnit))
          return decoded
        })
    }
    mappings = try message.messages(PprofField.Profile.mapping).map { mapping in
      Mapping(
        id: mapping.integer(PprofField.Mapping.id), memoryStart: mapping.integer(PprofField.Mapping.memoryStart),
        memoryLimit: mapping.integer(PprofField.Mapping.memoryLimit), fileOffset: mapping.integer(PprofField.Mapping.fileOffset),
        filename: try string(mapping.integer(PprofField.Mapping.filename)),
        buildID: try string(mapping.integer(PprofField.Mapping.buildID)),
        hasFunctions: mapping.integer(PprofField.Mapping.hasFunctions) != 0,
        hasFilenames: mapping.integer(PprofField.Mapping.hasFilenames) != 0,
        hasLineNumbers: mapping.integer(PprofField.Mapping.hasLineNumbers) != 0,
        hasInlineFrames: mapping.integer(PprofField.Mapping.hasInlineFrames) != 0)
    }
    locations = try message.messages(PprofField.Profile.location).map { location in
      Location(
        id: location.integer(PprofField.Location.id), mappingID: location.integer(PprofField.Location.mappingID),
        address: location.integer(PprofField.Location.address),
        lines: try location.messages(PprofField.Location.line).map { line in
          Line(
            functionID: line.integer(PprofField.Line.functionID), line: line.signedInteger(PprofField.Line.line),
            column: line.signedInteger(PprofField.Line.column))
        },
        isFolded: location.integer(PprofField.Location.isFolded) != 0)
    }
    functions = try message.messages(PprofField.Profile.function).map { function in
      Function(
        id: function.integer(PprofField.Function.id), name: try string(function.integer(PprofField.Function.name)),
        systemName: try string(function.integer(PprofField.Function.systemName)),
        filename: try string(function.integer(PprofField.Function.filename)),
        startLine: function.signedInteger(PprofField.Function.startLine))
    }
    dropFrames = try string(message.integer(PprofField.Profile.dropFrames))
    keepFrames = try string(message.integer(PprofField.Profile.keepFrames))
    timeNanos = message.signedInteger(PprofField.Profile.timeNanos)
    durationNanos = message.signedInteger(PprofField.Profile.durationNanos)
    periodType = try message.messages(PprofField.Profile.periodType).last.map(valueType)
    period = message.signedInteger(PprofField.Profile.period)
    comments = try message.integers(PprofField.Profile.comment).map(string)
    defaultSampleType = try string(message.integer(PprofField.Profile.defaultSampleType))
    docURL = try string(message.integer(PprofField.Profile.docURL))
  }
}
