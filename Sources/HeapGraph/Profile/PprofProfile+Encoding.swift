extension PprofProfile {
  /// The profile as a serialized `Profile` message: fields in the order of their numbers,
  /// repeated integers packed, fields at their default left out, and the string table built from
  /// the strings in the order they are first written (`""` first, at index 0). The same profile
  /// always gives the same bytes.
  ///
  /// pprof's files (`.pb.gz`) hold these bytes gzipped; this module, which uses no C library,
  /// leaves the compression to its caller (the CLI and the agent compress with zlib).
  public func serializedBytes() -> [UInt8] {
    var strings = Strings()
    var body = ProtobufWriter()
    for valueType in sampleTypes { body.message(PprofField.Profile.sampleType) { $0.write(valueType, &strings) } }
    for sample in samples {
      body.message(PprofField.Profile.sample) { message in
        message.packed(PprofField.Sample.locationID, sample.locationIDs)
        message.packed(PprofField.Sample.value, sample.values)
        for label in sample.labels {
          message.message(PprofField.Sample.label) { fields in
            fields.int64(PprofField.Label.key, strings.index(label.key))
            fields.int64(PprofField.Label.str, strings.index(label.string))
            fields.int64(PprofField.Label.num, label.number)
            fields.int64(PprofField.Label.numUnit, strings.index(label.numberUnit))
          }
        }
      }
    }
    for mapping in mappings {
      body.message(PprofField.Profile.mapping) { fields in
        fields.uint64(PprofField.Mapping.id, mapping.id)
        fields.uint64(PprofField.Mapping.memoryStart, mapping.memoryStart)
        fields.uint64(PprofField.Mapping.memoryLimit, mapping.memoryLimit)
        fields.uint64(PprofField.Mapping.fileOffset, mapping.fileOffset)
        fields.int64(PprofField.Mapping.filename, strings.index(mapping.filename))
        fields.int64(PprofField.Mapping.buildID, strings.index(mapping.buildID))
        fields.bool(PprofField.Mapping.hasFunctions, mapping.hasFunctions)
        fields.bool(PprofField.Mapping.hasFilenames, mapping.hasFilenames)
        fields.bool(PprofField.Mapping.hasLineNumbers, mapping.hasLineNumbers)
        fields.bool(PprofField.Mapping.hasInlineFrames, mapping.hasInlineFrames)
      }
    }
    for location in locations {
      body.message(PprofField.Profile.location) { fields in
        fields.uint64(PprofField.Location.id, location.id)
        fields.uint64(PprofField.Location.mappingID, location.mappingID)
        fields.uint64(PprofField.Location.address, location.address)
        for line in location.lines {
          fields.message(PprofField.Location.line) { lineFields in
            lineFields.uint64(PprofField.Line.functionID, line.functionID)
            lineFields.int64(PprofField.Line.line, line.line)
            lineFields.int64(PprofField.Line.column, line.column)
          }
        }
        fields.bool(PprofField.Location.isFolded, location.isFolded)
      }
    }
    for function in functions {
      body.message(PprofField.Profile.function) { fields in
        fields.uint64(PprofField.Function.id, function.id)
        fields.int64(PprofField.Function.name, strings.index(function.name))
        fields.int64(PprofField.Function.systemName, strings.index(function.systemName))
        fields.int64(PprofField.Function.filename, strings.index(function.filename))
        fields.int64(PprofField.Function.startLine, function.startLine)
      }
    }
    // The fields after the string table name strings too: written first, so that the table
    // holds their strings, and appended after it.
    var tail = ProtobufWriter()
    tail.int64(PprofField.Profile.dropFrames, strings.index(dropFrames))
    tail.int64(PprofField.Profile.keepFrames, strings.index(keepFrames))
    tail.int64(PprofField.Profile.timeNanos, timeNanos)
    tail.int64(PprofField.Profile.durationNanos, durationNanos)
    if let periodType { tail.message(PprofField.Profile.periodType) { $0.write(periodType, &strings) } }
    tail.int64(PprofField.Profile.period, period)
    tail.packed(PprofField.Profile.comment, comments.map { strings.index($0) })
    tail.int64(PprofField.Profile.defaultSampleType, strings.index(defaultSampleType))
    tail.int64(PprofField.Profile.docURL, strings.index(docURL))

    var profile = body
    for string in strings.table { profile.string(PprofField.Profile.stringTable, string) }
    profile.append(tail)
    return profile.bytes
  }

  /// The string table being built: each string once, in the order first asked for.
  fileprivate struct Strings {
    private(set) var table: [String] = [""]
    private var indices: [String: Int64] = ["": 0]

    mutating func index(_ string: String) -> Int64 {
      if let index = indices[string] { return index }
      let index = Int64(table.count)
      table.append(string)
      indices[string] = index
      return index
    }
  }
}

extension ProtobufWriter {
  /// A `ValueType` message's fields.
  fileprivate mutating func write(_ valueType: PprofProfile.ValueType, _ strings: inout PprofProfile.Strings) {
    int64(PprofField.ValueType.type, strings.index(valueType.type))
    int64(PprofField.ValueType.unit, strings.index(valueType.unit))
  }
}
