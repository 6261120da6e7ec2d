/// The live Swift objects of a process as a heap profile in pprof's format, laid out as Go's
/// runtime writes `/debug/pprof/heap`: so `go tool pprof`, Pyroscope and Parca read it as they
/// read a Go service's.
///
/// The profile has Go's four sample types, in Go's order: `alloc_objects/count`,
/// `alloc_space/bytes`, `inuse_objects/count` and `inuse_space/bytes` (shown by default), a
/// period of type `space/bytes` that is the sampling interval in bytes (0: every allocation was
/// recorded), and one sample per ``Site``: the objects of one type allocated at one stack, with
/// the labels `object` (the type's name, for `-tagfocus`) and `bytes` (their average size, as
/// Go labels its samples). The allocation stack starts at the function that allocated: the
/// allocating initializers it called (`MyApp.Feed.__allocating_init()`, the code that asks the
/// runtime for memory, as Go's `runtime.newobject` is) are left out, the type being the `object`
/// label. Objects whose stack was not recorded are under one location, `(no stack recorded)`.
///
/// A producer that did not count the objects freed since it started (a snapshot holds only what
/// is alive) gives `alloc_*` values equal to the `inuse_*` ones.
///
/// ```swift
/// let profile = HeapProfile(snapshot: snapshot)
/// try FileBytes.writeAtomically(profile.pprofProfile.serializedBytes(), to: "heap.pb")
/// ```
/// ```text
/// $ go tool pprof -top -sample_index=inuse_space heap.pb
/// ```
///
/// The bytes are the `Profile` message uncompressed, which pprof reads as it is; its `.pb.gz`
/// files, which the CLI and `AllocationTracker.writeHeapProfile(to:)` write, hold it gzipped.
public struct HeapProfile: Sendable, Hashable {
  /// The objects of one type allocated at one stack: those alive, and, when the producer
  /// counted them, all it saw allocated.
  public struct Site: Sendable, Hashable {
    /// The module-qualified type name, or a closure's name; `nil` when not known (a stack whose
    /// sampled objects were all freed): the sample then has no `object` label.
    public var typeName: String?
    /// The allocation stack, innermost frame first; `nil` when none was recorded.
    public var frames: [StackFrame]?
    /// How many objects are alive.
    public var objects: Int
    /// Their bytes (objects whose size is not known count none).
    public var bytes: Int
    /// How many objects were allocated, freed ones included, when the producer counted them
    /// (`alloc_objects`; without it, the live ones).
    public var allocatedObjects: Int?
    /// Their bytes (`alloc_space`; without it, the live ones').
    public var allocatedBytes: Int?

    public init(
      typeName: String?, frames: [StackFrame]?, objects: Int, bytes: Int, allocatedObjects: Int? = nil, allocatedBytes: Int? = nil
    ) {
      self.typeName = typeName
      self.frames = frames
      self.objects = objects
      self.bytes = bytes
      self.allocatedObjects = allocatedObjects
      self.allocatedBytes = allocatedBytes
    }
  }

  /// An executable image mapped into the profiled process, which frames' addresses fall in.
  public struct Image: Sendable, Hashable {
    /// The first address of the mapping, and the first past it.
    public var start: UInt64
    public var limit: UInt64
    /// The offset in the file of the mapping's first byte.
    public var fileOffset: UInt64
    /// The file's path.
    public var path: String
    /// The GNU build id in hex, when known.
    public var buildID: String?

    public init(start: UInt64, limit: UInt64, fileOffset: UInt64, path: String, buildID: String? = nil) {
      self.start = start
      self.limit = limit
      self.fileOffset = fileOffset
      self.path = path
      self.buildID = buildID
    }
  }

  /// The function name of the one location of objects whose allocation stack was not recorded.
  public static let noStackFunctionName = "(no stack recorded)"
  /// The key of the label that names a sample's type.
  public static let objectLabelKey = "object"
  /// The key of the numeric label that holds a sample's average object size, as in Go's profiles.
  public static let sizeLabelKey = "bytes"
  /// The sample types, in Go's order.
  public static let sampleTypes: [PprofProfile.ValueType] = [
    .init(type: "alloc_objects", unit: "count"), .init(type: "alloc_space", unit: "bytes"),
    .init(type: "inuse_objects", unit: "count"), .init(type: "inuse_space", unit: "bytes"),
  ]
  /// The sample type readers show unless told otherwise.
  public static let defaultSampleType = "inuse_space"

  /// The objects, by type and allocation stack.
  public var sites: [Site]
  /// On average one allocation in this many bytes was recorded; 0 when every one was. Values
  /// are scaled up as Go's are (``scaled(objects:bytes:samplingInterval:)``).
  public var samplingInterval: Int
  /// The executable mappings of the process (its executable first, as pprof expects), when known.
  public var images: [Image]
  /// The mangled symbol of the function of each frame whose address the producer looked up,
  /// by the frame's `pc`.
  public var mangledNames: [UInt64: String]
  /// When the objects were seen, in nanoseconds since 1970 (UTC), when known.
  public var timeNanos: Int64?
  /// Free text for people: what was profiled.
  public var comments: [String]

  public init(
    sites: [Site], samplingInterval: Int = 0, images: [Image] = [], mangledNames: [UInt64: String] = [:], timeNanos: Int64? = nil,
    comments: [String] = []
  ) {
    self.sites = sites
    self.samplingInterval = samplingInterval
    self.images = images
    self.mangledNames = mangledNames
    self.timeNanos = timeNanos
    self.comments = comments
  }

  /// The number of objects, summed over the sites.
  public var objectCount: Int { sites.reduce(0) { $0 + $1.objects } }
  /// Their bytes, summed over the sites.
  public var byteCount: Int { sites.reduce(0) { $0 + $1.bytes } }
}
