/// The field numbers of pprof's `profile.proto` (package `perftools.profiles` of google/pprof),
/// one enum per message, each constant named after its field: what the encoder writes
/// (`PprofProfile+Encoding.swift`) and the tests' decoder reads.
///
/// ```swift
/// var writer = ProtobufWriter()
/// writer.int64(PprofField.Profile.period, 524_288)
/// print(writer.bytes)
/// ```
/// ```text
/// [96, 128, 128, 32]
/// ```
package enum PprofField {
  /// `Profile`, the message a file holds.
  package enum Profile {
    /// `repeated ValueType sample_type`: what each value of a sample measures.
    package static let sampleType: UInt32 = 1
    /// `repeated Sample sample`.
    package static let sample: UInt32 = 2
    /// `repeated Mapping mapping`.
    package static let mapping: UInt32 = 3
    /// `repeated Location location`.
    package static let location: UInt32 = 4
    /// `repeated Function function`.
    package static let function: UInt32 = 5
    /// `repeated string string_table`, `""` first: every other string field is an index into it.
    package static let stringTable: UInt32 = 6
    /// `int64 drop_frames`: a regular expression of frames to leave out (a string index).
    package static let dropFrames: UInt32 = 7
    /// `int64 keep_frames`: a regular expression of frames to keep despite `drop_frames`.
    package static let keepFrames: UInt32 = 8
    /// `int64 time_nanos`: when the profile was taken, in nanoseconds since 1970.
    package static let timeNanos: UInt32 = 9
    /// `int64 duration_nanos`.
    package static let durationNanos: UInt32 = 10
    /// `ValueType period_type`: what the period counts.
    package static let periodType: UInt32 = 11
    /// `int64 period`: the sampling interval.
    package static let period: UInt32 = 12
    /// `repeated int64 comment`: string indices, packed.
    package static let comment: UInt32 = 13
    /// `int64 default_sample_type`: the sample type shown by default (a string index).
    package static let defaultSampleType: UInt32 = 14
    /// `int64 doc_url`: documentation of the profile (a string index).
    package static let docURL: UInt32 = 15
  }

  /// `ValueType`: a measure and its unit, both string indices.
  package enum ValueType {
    /// `int64 type`: `inuse_space`.
    package static let type: UInt32 = 1
    /// `int64 unit`: `bytes`.
    package static let unit: UInt32 = 2
  }

  /// `Sample`: values at a stack.
  package enum Sample {
    /// `repeated uint64 location_id`, leaf first, packed.
    package static let locationID: UInt32 = 1
    /// `repeated int64 value`, one per sample type, packed.
    package static let value: UInt32 = 2
    /// `repeated Label label`.
    package static let label: UInt32 = 3
  }

  /// `Label`: a key with a string or a number.
  package enum Label {
    /// `int64 key` (a string index).
    package static let key: UInt32 = 1
    /// `int64 str`: the string value (a string index).
    package static let str: UInt32 = 2
    /// `int64 num`: the numeric value.
    package static let num: UInt32 = 3
    /// `int64 num_unit`: the unit of `num` (a string index).
    package static let numUnit: UInt32 = 4
  }

  /// `Mapping`: an image loaded into the process.
  package enum Mapping {
    /// `uint64 id`, unique and nonzero.
    package static let id: UInt32 = 1
    /// `uint64 memory_start`: the address where it starts.
    package static let memoryStart: UInt32 = 2
    /// `uint64 memory_limit`: the address past its end.
    package static let memoryLimit: UInt32 = 3
    /// `uint64 file_offset`: the offset in the file mapped at `memory_start`.
    package static let fileOffset: UInt32 = 4
    /// `int64 filename` (a string index).
    package static let filename: UInt32 = 5
    /// `int64 build_id` (a string index).
    package static let buildID: UInt32 = 6
    /// `bool has_functions`: its locations name their functions.
    package static let hasFunctions: UInt32 = 7
    /// `bool has_filenames`.
    package static let hasFilenames: UInt32 = 8
    /// `bool has_line_numbers`.
    package static let hasLineNumbers: UInt32 = 9
    /// `bool has_inline_frames`.
    package static let hasInlineFrames: UInt32 = 10
  }

  /// `Location`: an address, and the lines of the functions inlined there.
  package enum Location {
    /// `uint64 id`, unique and nonzero.
    package static let id: UInt32 = 1
    /// `uint64 mapping_id`: 0 for none.
    package static let mappingID: UInt32 = 2
    /// `uint64 address`.
    package static let address: UInt32 = 3
    /// `repeated Line line`, the innermost (inlined) first.
    package static let line: UInt32 = 4
    /// `bool is_folded`: the frames were merged with others.
    package static let isFolded: UInt32 = 5
  }

  /// `Line`: a function and a line in it.
  package enum Line {
    /// `uint64 function_id`.
    package static let functionID: UInt32 = 1
    /// `int64 line`.
    package static let line: UInt32 = 2
    /// `int64 column`.
    package static let column: UInt32 = 3
  }

  /// `Function`: a function's names and file.
  package enum Function {
    /// `uint64 id`, unique and nonzero.
    package static let id: UInt32 = 1
    /// `int64 name`: the readable name (a string index).
    package static let name: UInt32 = 2
    /// `int64 system_name`: the name in the binary, mangled (a string index).
    package static let systemName: UInt32 = 3
    /// `int64 filename` (a string index).
    package static let filename: UInt32 = 4
    /// `int64 start_line`: the line where the function starts.
    package static let startLine: UInt32 = 5
  }
}
