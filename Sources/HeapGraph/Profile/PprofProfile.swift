/// A profile in pprof's format: the `Profile` message of `profile.proto` (package
/// `perftools.profiles` of google/pprof), which `go tool pprof`, Pyroscope and Parca read.
///
/// The model holds strings where the message holds indices into its string table; the encoding
/// (``serializedBytes()``) builds the table, with `""` at index 0. Ids of
/// mappings, locations and functions are nonzero and unique in their list; a location's
/// `mappingID` of 0 means no mapping. A sample's first location is its leaf.
///
/// ```swift
/// var profile = PprofProfile()
/// profile.sampleTypes = [.init(type: "objects", unit: "count")]
/// profile.functions = [.init(id: 1, name: "MyApp.load()", filename: "Load.swift")]
/// profile.locations = [.init(id: 1, lines: [.init(functionID: 1, line: 12)])]
/// profile.samples = [.init(locationIDs: [1], values: [3])]
/// try FileBytes.writeAtomically(profile.serializedBytes(), to: "objects.pb")
/// ```
public struct PprofProfile: Sendable, Hashable {
  /// What a value measures, and its unit: `inuse_space`, `bytes`.
  public struct ValueType: Sendable, Hashable {
    public var type: String
    public var unit: String

    public init(type: String, unit: String) {
      self.type = type
      self.unit = unit
    }
  }

  /// A sample's label: a key with a string or a number (and the number's unit).
  public struct Label: Sendable, Hashable {
    public var key: String
    /// The string value, `""` for a numeric label.
    public var string: String
    /// The numeric value, 0 for a string label.
    public var number: Int64
    /// The unit of ``number``, `""` when not given.
    public var numberUnit: String

    /// A string label: `object` = `MyApp.Feed`.
    public init(key: String, string: String) {
      self.key = key
      self.string = string
      self.number = 0
      self.numberUnit = ""
    }

    /// A numeric label: `bytes` = 48.
    public init(key: String, number: Int64, unit: String = "") {
      self.key = key
      self.string = ""
      self.number = number
      self.numberUnit = unit
    }
  }

  /// Values measured at one stack: one per sample type.
  public struct Sample: Sendable, Hashable {
    /// The stack, leaf first.
    public var locationIDs: [UInt64]
    /// One value per entry of ``PprofProfile/sampleTypes``, in its order.
    public var values: [Int64]
    public var labels: [Label]

    public init(locationIDs: [UInt64], values: [Int64], labels: [Label] = []) {
      self.locationIDs = locationIDs
      self.values = values
      self.labels = labels
    }
  }

  /// An image mapped into the profiled process: the executable or a shared library.
  public struct Mapping: Sendable, Hashable {
    public var id: UInt64
    public var memoryStart: UInt64
    public var memoryLimit: UInt64
    /// The offset in the file of the first mapped byte.
    public var fileOffset: UInt64
    /// The file's path.
    public var filename: String
    /// The GNU build id in hex, `""` when not known.
    public var buildID: String
    /// Whether the mapping's locations name their functions (a reader then does not look the
    /// addresses up again), their files, their lines; whether inlined frames are expanded.
    public var hasFunctions: Bool
    public var hasFilenames: Bool
    public var hasLineNumbers: Bool
    public var hasInlineFrames: Bool

    public init(
      id: UInt64, memoryStart: UInt64, memoryLimit: UInt64, fileOffset: UInt64 = 0, filename: String, buildID: String = "",
      hasFunctions: Bool = false, hasFilenames: Bool = false, hasLineNumbers: Bool = false, hasInlineFrames: Bool = false
    ) {
      self.id = id
      self.memoryStart = memoryStart
      self.memoryLimit = memoryLimit
      self.fileOffset = fileOffset
      self.filename = filename
      self.buildID = buildID
      self.hasFunctions = hasFunctions
      self.hasFilenames = hasFilenames
      self.hasLineNumbers = hasLineNumbers
      self.hasInlineFrames = hasInlineFrames
    }
  }

  /// A source line of a location.
  public struct Line: Sendable, Hashable {
    public var functionID: UInt64
    /// One-based; 0 when not known.
    public var line: Int64
    /// One-based; 0 when not known.
    public var column: Int64

    public init(functionID: UInt64, line: Int64 = 0, column: Int64 = 0) {
      self.functionID = functionID
      self.line = line
      self.column = column
    }
  }

  /// A code address and the source lines it stands for (several when functions were inlined
  /// into it: the callee first, the function the code is in last).
  public struct Location: Sendable, Hashable {
    public var id: UInt64
    /// 0 when the mapping is not known.
    public var mappingID: UInt64
    /// 0 when the address is not known.
    public var address: UInt64
    public var lines: [Line]
    public var isFolded: Bool

    public init(id: UInt64, mappingID: UInt64 = 0, address: UInt64 = 0, lines: [Line], isFolded: Bool = false) {
      self.id = id
      self.mappingID = mappingID
      self.address = address
      self.lines = lines
      self.isFolded = isFolded
    }
  }

  /// A function: its name as people read it, as the linker knows it, and where it is.
  public struct Function: Sendable, Hashable {
    public var id: UInt64
    /// The demangled name: `MyApp.Feed.load() -> ()`.
    public var name: String
    /// The mangled symbol (`$s5MyApp4FeedC4loadyyF`), `""` when not known.
    public var systemName: String
    /// The source file, `""` when not known.
    public var filename: String
    /// The line the function starts at, 0 when not known.
    public var startLine: Int64

    public init(id: UInt64, name: String, systemName: String = "", filename: String = "", startLine: Int64 = 0) {
      self.id = id
      self.name = name
      self.systemName = systemName
      self.filename = filename
      self.startLine = startLine
    }
  }

  public var sampleTypes: [ValueType] = []
  public var samples: [Sample] = []
  public var mappings: [Mapping] = []
  public var locations: [Location] = []
  public var functions: [Function] = []
  /// A regular expression: frames whose function it matches whole are dropped with their callees.
  public var dropFrames: String = ""
  /// A regular expression: frames whose function it matches are kept even when ``dropFrames`` matches.
  public var keepFrames: String = ""
  /// When the profile was taken, in nanoseconds since 1970 (UTC); 0 when not known.
  public var timeNanos: Int64 = 0
  public var durationNanos: Int64 = 0
  /// What ``period`` counts.
  public var periodType: ValueType?
  /// The events between two sampled ones (for a heap profile, the sampling interval in bytes).
  public var period: Int64 = 0
  /// Free text for people.
  public var comments: [String] = []
  /// The ``ValueType/type`` of the sample type readers show by default.
  public var defaultSampleType: String = ""
  public var docURL: String = ""

  public init() {}
}
