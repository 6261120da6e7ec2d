import HeapGraph

/// Where references and owned storage live inside a value of one type, computed once per type
/// from reflection metadata (field descriptors, through RemoteMirror) and reused for every
/// instance.
///
/// Offsets are relative to the start of the value; labels are the path to the reference
/// (`state.payload`), empty for a value that is itself a reference.
indirect enum LayoutItem: Sendable {
  /// A class reference stored at `offset`. `boxedType` names the value type when the target is a
  /// captured-`var` box.
  case reference(offset: Int, label: String, ownership: Ownership, boxedType: String?)
  /// A thick function: code pointer at `offset`, context at `offset + 8`.
  case function(offset: Int, label: String)
  /// An opaque or class existential (`any P`, `Any`) whose content is found per instance.
  case existential(offset: Int, label: String, typeRef: UInt64)
  /// An `any Error`: a pointer to an error box whose content is found per instance.
  case errorExistential(offset: Int, label: String, typeRef: UInt64)
  /// An enum with payloads: the case is found per instance, then its payload is read.
  case enumeration(offset: Int, label: String, typeRef: UInt64, cases: [EnumCaseLayout])
  /// `Array` / `ContiguousArray`: a pointer to contiguous storage.
  case array(offset: Int, label: String, element: ElementLayout)
  /// `Dictionary`: a pointer to native hashed storage.
  case dictionary(offset: Int, label: String, key: ElementLayout, value: ElementLayout)
  /// `Set`: a pointer to native hashed storage.
  case set(offset: Int, label: String, element: ElementLayout)
  /// `String`: two words, the second of which may refer to heap storage the value owns. Holds no
  /// reference a snapshot records; read for the bytes of that storage.
  case string(offset: Int, label: String)
  /// A raw continuation (`Builtin.RawUnsafeContinuation`, inside `UnsafeContinuation` and
  /// `CheckedContinuation`): the task it resumes, while that task waits. The waiting task
  /// retains itself until it completes, and that retain belongs to whoever can resume it: the
  /// holder of the continuation.
  case continuation(offset: Int, label: String)
  /// Something whose layout is unknown: reported as a diagnostic.
  case opaque(offset: Int, label: String, reason: String)

  /// The same item at `offset + delta`, with its label under `prefix`.
  func nested(at delta: Int, under prefix: String) -> LayoutItem {
    switch self {
    case .reference(let offset, let label, let ownership, let boxedType):
      .reference(offset: offset + delta, label: joinLabel(prefix, label), ownership: ownership, boxedType: boxedType)
    case .function(let offset, let label):
      .function(offset: offset + delta, label: joinLabel(prefix, label))
    case .existential(let offset, let label, let typeRef):
      .existential(offset: offset + delta, label: joinLabel(prefix, label), typeRef: typeRef)
    case .errorExistential(let offset, let label, let typeRef):
      .errorExistential(offset: offset + delta, label: joinLabel(prefix, label), typeRef: typeRef)
    case .enumeration(let offset, let label, let typeRef, let cases):
      .enumeration(offset: offset + delta, label: joinLabel(prefix, label), typeRef: typeRef, cases: cases)
    case .array(let offset, let label, let element):
      .array(offset: offset + delta, label: joinLabel(prefix, label), element: element)
    case .dictionary(let offset, let label, let key, let value):
      .dictionary(offset: offset + delta, label: joinLabel(prefix, label), key: key, value: value)
    case .set(let offset, let label, let element):
      .set(offset: offset + delta, label: joinLabel(prefix, label), element: element)
    case .string(let offset, let label):
      .string(offset: offset + delta, label: joinLabel(prefix, label))
    case .continuation(let offset, let label):
      .continuation(offset: offset + delta, label: joinLabel(prefix, label))
    case .opaque(let offset, let label, let reason):
      .opaque(offset: offset + delta, label: joinLabel(prefix, label), reason: reason)
    }
  }

  /// Whether reading the item can find a reference or a diagnostic: false for a string, and for
  /// a collection or enum that holds only values without references (`[Int]`, `[String: [Int]]`,
  /// `String?`), whose reading only finds the storage they own.
  var holdsReferences: Bool {
    switch self {
    case .string: false
    case .array(_, _, let element), .set(_, _, let element): element.holdsReferences
    case .dictionary(_, _, let key, let value): key.holdsReferences || value.holdsReferences
    case .enumeration(_, _, _, let cases): cases.contains { $0.isIndirect || ($0.payload ?? []).contains(where: \.holdsReferences) }
    case .reference, .function, .existential, .errorExistential, .continuation, .opaque: true
    }
  }
}

/// One case of an enum with payloads.
struct EnumCaseLayout: Sendable {
  /// The case name, added to labels (except for `Optional`, which adds nothing).
  var name: String
  /// The case name as the runtime reports it (`some` for `Optional`), to match the active case.
  var runtimeName: String
  /// Where references live in the payload (relative to the enum's start); `nil` for a case
  /// without payload.
  var payload: [LayoutItem]?
  /// The payload is in a heap box (`indirect`).
  var isIndirect: Bool
}

/// The layout of a collection's element type.
struct ElementLayout: Sendable {
  var items: [LayoutItem]
  var stride: Int
  /// The element type's name (for labels such as dictionary keys).
  var typeName: String
  /// Whether an element can hold a reference (``LayoutItem/holdsReferences``); when not, its
  /// items are read only for the storage they own, and need no labels.
  var holdsReferences: Bool

  init(items: [LayoutItem], stride: Int, typeName: String) {
    self.items = items
    self.stride = stride
    self.typeName = typeName
    holdsReferences = items.contains(where: \.holdsReferences)
  }
}

/// `"state"` + `"payload"` → `"state.payload"`; an empty side adds nothing.
func joinLabel(_ prefix: String, _ label: String) -> String {
  if prefix.isEmpty { return label }
  if label.isEmpty { return prefix }
  return label.hasPrefix("[") ? prefix + label : prefix + "." + label
}
