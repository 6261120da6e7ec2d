/// A heap snapshot: the objects of a process, the references between them, the roots that keep
/// them alive and their allocation stacks, as in the snapshot format version 1.
///
/// A snapshot is what the CLI reads and what in-process capture writes; ``ObjectGraph`` turns it
/// into a compact, searchable graph. Storage is columnar and interned, so a snapshot of a million
/// objects costs tens of megabytes, not gigabytes.
///
/// ```swift
/// var builder = HeapSnapshot.Builder()
/// builder.addObject(id: 1, type: "MyApp.Feed", address: 0x7f3a10)
/// builder.addObject(id: 2, type: "closure #1 in MyApp.Feed.load()")
/// builder.addReference(from: 1, to: 2, label: "onUpdate", ownership: .strong)
/// builder.addReference(from: 2, to: 1, label: "capture #0: Feed", ownership: .strong)
/// let snapshot = builder.snapshot
/// print(snapshot.objectCount, snapshot.referenceCount)
/// ```
/// ```text
/// 2 2
/// ```
public struct HeapSnapshot: Sendable, Equatable {
  /// The value of the `format` field.
  public static let formatName = "swift-heap-snapshot"
  /// The format versions this library reads; it writes the newest.
  public static let supportedVersions: ClosedRange<Int> = 1...1

  public var metadata: Metadata

  // Objects, one entry per object in file order.
  var objectIDs: [Int64] = []
  var objectTypes: [Int32] = []
  var objectAddresses: [UInt64] = []  // 0: unknown
  var objectSizes: [Int64] = []  // -1: unknown
  var objectGenerations: [Int64] = []  // Int64.min: unknown
  var objectStacks: [Int32] = []  // index into `stacks`, -1: none
  var objectKinds: [ObjectKind?] = []  // nil: not recorded (one byte each)
  var typeNames = StringTable()

  // References, resolved to object indices.
  var referenceSources: [Int32] = []
  var referenceTargets: [Int32] = []
  var referenceLabels: [Int32] = []  // -1: no label
  var referenceOwnerships: [Ownership] = []
  var labels = StringTable()

  /// The roots that keep objects alive (globals, stacks of threads, runtime mechanisms).
  public internal(set) var roots: [Root] = []
  /// The allocation stacks that objects refer to.
  public internal(set) var stacks: [Stack] = []

  init(metadata: Metadata) {
    self.metadata = metadata
  }

  /// The number of objects.
  public var objectCount: Int { objectIDs.count }
  /// The number of references, of every ownership.
  public var referenceCount: Int { referenceSources.count }

  /// The object at `index` (`0..<objectCount`), in file order.
  public func object(at index: Int) -> Object {
    Object(
      id: objectIDs[index],
      type: typeNames[objectTypes[index]],
      address: objectAddresses[index] == 0 ? nil : objectAddresses[index],
      size: objectSizes[index] < 0 ? nil : Int(objectSizes[index]),
      generation: objectGenerations[index] == Int64.min ? nil : Int(objectGenerations[index]),
      stack: objectStacks[index] < 0 ? nil : stacks[Int(objectStacks[index])].id,
      kind: objectKinds[index]
    )
  }

  /// The reference at `index` (`0..<referenceCount`), in file order.
  public func reference(at index: Int) -> Reference {
    Reference(
      from: objectIDs[Int(referenceSources[index])],
      to: objectIDs[Int(referenceTargets[index])],
      label: referenceLabels[index] < 0 ? nil : labels[referenceLabels[index]],
      ownership: referenceOwnerships[index]
    )
  }

  /// Every object, in file order.
  public var objects: [Object] { (0..<objectCount).map(object(at:)) }
  /// Every reference, in file order.
  public var references: [Reference] { (0..<referenceCount).map(reference(at:)) }
}

extension HeapSnapshot {
  /// The `metadata` section: where the snapshot comes from.
  public struct Metadata: Sendable, Hashable {
    /// The tool that wrote the snapshot, e.g. `"swift-leak-detector 0.1"`.
    public var tool: String?
    /// When the snapshot was taken, as an ISO 8601 string.
    public var createdAt: String?
    /// The process (or test) that was captured, as people read it: `Server --port 8080 (pid 4242)`.
    public var process: String?
    /// The id of the process that was captured, when the producer recorded it.
    public var processID: Int32?
    /// The command line of the process that was captured (the executable's path, then its
    /// arguments), when the producer recorded it.
    public var arguments: [String]?
    /// How long the capture took, in milliseconds, when the producer measured it: for
    /// `leak-detector capture PID`, how long the process was stopped.
    public var captureMilliseconds: Int?
    /// What the capture could not see or had to retry (types without reflection metadata, a
    /// capture attempt that crashed), each with its kind and fields when the snapshot records
    /// them; empty when it saw everything.
    public var diagnosticRecords: [CaptureDiagnostic]
    /// The memory of the process at the instant of the capture, when the producer recorded it.
    public var memory: ProcessMemory?

    /// Whether the process's id, command line or capture time is recorded.
    package var hasProcessFields: Bool { processID != nil || arguments != nil || captureMilliseconds != nil }

    /// The sentences of ``diagnosticRecords``, in plain words.
    ///
    /// Setting it keeps the kind and fields of each diagnostic whose sentence stays at its
    /// place, so that appending sentences keeps the records before them; a new sentence has no kind.
    public var diagnostics: [String] {
      get { diagnosticRecords.map(\.message) }
      set {
        diagnosticRecords = newValue.enumerated().map { index, message in
          index < diagnosticRecords.count && diagnosticRecords[index].message == message
            ? diagnosticRecords[index] : CaptureDiagnostic(message: message)
        }
      }
    }

    public init(
      tool: String? = nil, createdAt: String? = nil, process: String? = nil, diagnostics: [String] = [], memory: ProcessMemory? = nil,
      processID: Int32? = nil, arguments: [String]? = nil, captureMilliseconds: Int? = nil
    ) {
      self.tool = tool
      self.createdAt = createdAt
      self.process = process
      self.processID = processID
      self.arguments = arguments
      self.captureMilliseconds = captureMilliseconds
      self.diagnosticRecords = diagnostics.map { CaptureDiagnostic(message: $0) }
      self.memory = memory
    }
  }

  /// An object of the snapshot.
  public struct Object: Sendable, Hashable {
    /// The snapshot-unique id that references use.
    public var id: Int64
    /// The module-qualified type name (`MyApp.Feed`) or closure name.
    public var type: String
    /// The address in the captured process, when known.
    public var address: UInt64?
    /// The allocation size in bytes, when known.
    public var size: Int?
    /// The tracker generation the object was allocated in, when known.
    public var generation: Int?
    /// The id of the allocation stack in ``HeapSnapshot/stacks``, when captured.
    public var stack: Int64?
    /// Whether it is a class instance, a closure context or a box, when the snapshot records
    /// it; ``ObjectKind/inferred(fromTypeName:)`` guesses it from ``type`` otherwise.
    public var kind: ObjectKind?

    public init(
      id: Int64, type: String, address: UInt64? = nil, size: Int? = nil, generation: Int? = nil, stack: Int64? = nil,
      kind: ObjectKind? = nil
    ) {
      self.id = id
      self.type = type
      self.address = address
      self.size = size
      self.generation = generation
      self.stack = stack
      self.kind = kind
    }
  }

  /// A reference from one object to another.
  public struct Reference: Sendable, Hashable {
    public var from: Int64
    public var to: Int64
    /// How the source names it: `delegate`, `items[3]`, `capture #0: Feed`.
    public var label: String?
    public var ownership: Ownership

    public init(from: Int64, to: Int64, label: String?, ownership: Ownership) {
      self.from = from
      self.to = to
      self.label = label
      self.ownership = ownership
    }
  }

  /// Something outside the heap that keeps an object alive.
  public struct Root: Sendable, Hashable {
    /// The id of the object held.
    public var object: Int64
    /// What holds it: `global`, `stack`, `runtime`, … (``RootKind/unknown`` when not given).
    public var kind: RootKind
    /// A name for the holder, e.g. `Feed.shared`.
    public var label: String?

    public init(object: Int64, kind: RootKind, label: String? = nil) {
      self.object = object
      self.kind = kind
      self.label = label
    }
  }

  /// An allocation stack: the frames that were active when an object was allocated, innermost first.
  public struct Stack: Sendable, Hashable {
    public var id: Int64
    public var frames: [StackFrame]

    public init(id: Int64, frames: [StackFrame]) {
      self.id = id
      self.frames = frames
    }
  }
}
