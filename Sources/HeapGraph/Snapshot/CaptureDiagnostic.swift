/// Something a capture could not see or had to retry, as a value: its kind, the fields that say
/// what it is about, and the sentence that says it to people.
///
/// A report reads the kind and the fields, never the sentence: rewording a message changes no
/// report. The kind and the fields also let a reader count diagnostics by kind, or deduplicate
/// them (`kind` with `typeName` names one problem of one type, whatever the object).
///
/// ```swift
/// let retain = UnbalancedRetain(typeName: "Retains.DroppedRetain", address: 0x55d1c2a3e8f0, count: 1)
/// print(retain.diagnostic.kind!, retain.diagnostic.typeName!)
/// ```
/// ```text
/// unbalanced-retain Retains.DroppedRetain
/// ```
public struct CaptureDiagnostic: Sendable, Hashable, CustomStringConvertible {
  /// What a diagnostic is about. The format keeps it free text (a producer may name its own
  /// kinds, and a reader keeps those it does not know); these are the ones this package writes.
  public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The spelling in the snapshot format (`"kind": "unbalanced-retain"`).
    public var rawValue: String

    public init(rawValue: String) {
      self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
      rawValue = value
    }

    public var description: String { rawValue }

    /// A capture attempt's process crashed, stalled, or sent nothing readable, and the attempt
    /// was repeated or the capture given up; `count` is the attempt's number.
    public static let captureFailed: Kind = "capture-failed"
    /// A capture attempt could not start its process (no shared memory, pipe or process to be
    /// had); `count` is the attempt's number.
    public static let captureSetUpFailed: Kind = "capture-set-up-failed"
    /// An object retained more times than any word of memory refers to it, counted as leaked
    /// (``UnbalancedRetain``); `typeName`, `address`, and `count`, the retains nothing explains.
    public static let unbalancedRetain: Kind = "unbalanced-retain"
    /// An object the capture was asked to start from has no class metadata it knows, and was
    /// skipped; `address`.
    public static let unknownMetadata: Kind = "unknown-metadata"
    /// The capture stopped after reading its most objects; `count`, that bound.
    public static let objectLimit: Kind = "object-limit"
    /// An object was being deallocated at the instant of the capture, and its references were
    /// skipped; `typeName`, `address`.
    public static let deallocating: Kind = "deallocating"
    /// Some of an object's references could not be read (storage not readable, an unknown
    /// layout, missing reflection metadata); `typeName` and `address` of the object.
    public static let unreadableReferences: Kind = "unreadable-references"
    /// A type holds references that reflection cannot see (a Foundation or runtime type); noted
    /// once per type; `typeName`.
    public static let opaqueType: Kind = "opaque-type"
    /// A thread was running during a whole-process capture, so its stack was not scanned.
    public static let threadNotScanned: Kind = "thread-not-scanned"
    /// glibc's thread descriptor is not laid out as expected, so the pthread-specific values of
    /// other threads were not read during a whole-process capture.
    public static let threadSpecificValuesNotRead: Kind = "thread-specific-values-not-read"
    /// The Swift runtime's object layouts are not the ones this build reads (its start-up check
    /// found a fact that differs), so nothing was captured.
    public static let layoutMismatch: Kind = "layout-mismatch"
    /// Memory of a process or core file that could not be read (a segment the core lacks, a
    /// file that is missing).
    public static let memoryNotRead: Kind = "memory-not-read"
  }

  /// What the diagnostic is about; `nil` when the snapshot does not record it (a snapshot
  /// written before diagnostics had kinds, or a diagnostic given only as text).
  public var kind: Kind?
  /// The sentence for people: what the snapshot's `diagnostics` list.
  public var message: String
  /// The type of the object it is about, when it is about one.
  public var typeName: String?
  /// The address of the object it is about, when known.
  public var address: UInt64?
  /// A number whose meaning the kind gives (retains, objects, an attempt).
  public var count: Int?

  public init(kind: Kind? = nil, message: String, typeName: String? = nil, address: UInt64? = nil, count: Int? = nil) {
    self.kind = kind
    self.message = message
    self.typeName = typeName
    self.address = address
    self.count = count
  }

  /// The sentence for people, ``message``.
  public var description: String { message }

  /// Whether it carries anything beyond its message: what the snapshot's
  /// `metadata.diagnosticRecords` record.
  var hasRecord: Bool {
    kind != nil || typeName != nil || address != nil || count != nil
  }
}
