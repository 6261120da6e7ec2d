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
    for valueType in sampleTypes { body.message(1) { $0.write(valueType, &strings) } }
    for sample in samples {
      body.message(2) { message in
        message.packed(1, sample.locationIDs)
        message.packed(2, sample.values)
        for label in sample.labels {
          message.message(3) { fields in
            fields.int64(1, strings.index(label.key))
            fields.int64(2, strings.index(label.string))
            fields.int64(3, label.number)
            fields.int64(4, strings.index(label.numberUnit))
          }
        }
      }
    }
    for mapping in mappings {
      body.message(3) { fields in
        fields.uint64(1, mapping.id)
        fields.uint64(2, mapping.memoryStart)
        fields.uint64(3, mapping.memoryLimit)
        fields.uint64(4, mapping.fileOffset)
        fields.int64(5, strings.index(mapping.filename))
        fields.int64(6, strings.index(mapping.buildID))
        fields.bool(7, mapping.hasFunctions)
        fields.bool(8, mapping.hasFilenames)
        fields.bool(9, mapping.hasLineNumbers)
        fields.bool(10, mapping.hasInlineFrames)
      }
    }
    for location in locations {
      body.message(4) { fields in
        fields.uint64(1, location.id)
        fields.uint64(2, location.mappingID)
        fields.uint64(3, location.address)
        for line in location.lines {
          fields.message(4) { lineFields in
            lineFields.uint64(1, line.functionID)
            lineFields.int64(2, line.line)
            lineFields.int64(3, line.column)
          }
        }
        fields.bool(5, location.isFolded)
      }
    }
    for function in functions {
      body.message(5) { fields in
        fields.uint64(1, function.id)
        fields.int64(2, strings.index(function.name))
        fields.int64(3, strings.index(function.systemName))
        fields.int64(4, strings.index(function.filename))
        fields.int64(5, function.startLine)
      }
    }
    // The fields after the string table name strings too: written first, so that the table
    // holds their strings, and appended after it.
    var tail = ProtobufWriter()
    tail.int64(7, strings.index(dropFrames))
    tail.int64(8, strings.index(keepFrames))
    tail.int64(9, timeNanos)
    tail.int64(10, durationNanos)
    if let periodType { tail.message(11) { $0.write(periodType, &strings) } }
    tail.int64(12, period)
    tail.packed(13, comments.map { strings.index($0) })
    tail.int64(14, strings.index(defaultSampleType))
    tail.int64(15, strings.index(docURL))

    var profile = body
    for string in strings.table { profile.string(6, string) }
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
    int64(1, strings.index(valueType.type))
    int64(2, strings.index(valueType.unit))
  }
}
