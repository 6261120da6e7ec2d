import HeapGraph

extension PprofProfile {
  /// A string index that names no entry of the string table.
  public struct BadStringIndex: Error, CustomStringConvertible {
    public var index: UInt64
    public var count: Int
    public var description: String { "string index \(index) is out of the table's \(count) strings" }
  }

  /// The profile a serialized `Profile` message holds (not gzipped), read field by field with
  /// ``ProtobufMessage``: what a reader of pprof's files finds in it.
  public init(decoding bytes: [UInt8]) throws {
    let message = try ProtobufMessage(bytes)
    let table = message.strings(6)
    func string(_ index: UInt64) throws -> String {
      guard index < table.count else { throw BadStringIndex(index: index, count: table.count) }
      return table[Int(index)]
    }
    func valueType(_ message: ProtobufMessage) throws -> ValueType {
      ValueType(type: try string(message.integer(1)), unit: try string(message.integer(2)))
    }
    self.init()
    sampleTypes = try message.messages(1).map(valueType)
    samples = try message.messages(2).map { sample in
      Sample(
        locationIDs: try sample.integers(1), values: try sample.integers(2).map { Int64(bitPattern: $0) },
        labels: try sample.messages(3).map { label in
          var decoded = Label(key: try string(label.integer(1)), string: try string(label.integer(2)))
          decoded.number = label.signedInteger(3)
          decoded.numberUnit = try string(label.integer(4))
          return decoded
        })
    }
    mappings = try message.messages(3).map { mapping in
      Mapping(
        id: mapping.integer(1), memoryStart: mapping.integer(2), memoryLimit: mapping.integer(3), fileOffset: mapping.integer(4),
        filename: try string(mapping.integer(5)), buildID: try string(mapping.integer(6)), hasFunctions: mapping.integer(7) != 0,
        hasFilenames: mapping.integer(8) != 0, hasLineNumbers: mapping.integer(9) != 0, hasInlineFrames: mapping.integer(10) != 0)
    }
    locations = try message.messages(4).map { location in
      Location(
        id: location.integer(1), mappingID: location.integer(2), address: location.integer(3),
        lines: try location.messages(4).map { Line(functionID: $0.integer(1), line: $0.signedInteger(2), column: $0.signedInteger(3)) },
        isFolded: location.integer(5) != 0)
    }
    functions = try message.messages(5).map { function in
      Function(
        id: function.integer(1), name: try string(function.integer(2)), systemName: try string(function.integer(3)),
        filename: try string(function.integer(4)), startLine: function.signedInteger(5))
    }
    dropFrames = try string(message.integer(7))
    keepFrames = try string(message.integer(8))
    timeNanos = message.signedInteger(9)
    durationNanos = message.signedInteger(10)
    periodType = try message.messages(11).last.map(valueType)
    period = message.signedInteger(12)
    comments = try message.integers(13).map(string)
    defaultSampleType = try string(message.integer(14))
    docURL = try string(message.integer(15))
  }
}
