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
    case let .reference(offset, label, ownership, boxedType):
      .reference(offset: offset + delta, label: joinLabel(prefix, label), ownership: ownership, boxedType: boxedType)
    case let .function(offset, label):
      .function(offset: offset + delta, label: joinLabel(prefix, label))
    case let .existential(offset, label, typeRef):
      .existential(offset: offset + delta, label: joinLabel(prefix, label), typeRef: typeRef)
    case let .errorExistential(offset, label, typeRef):
      .errorExistential(offset: offset + delta, label: joinLabel(prefix, label), typeRef: typeRef)
    case let .enumeration(offset, label, typeRef, cases):
      .enumeration(offset: offset + delta, label: joinLabel(prefix, label), typeRef: typeRef, cases: cases)
    case let .array(offset, label, element):
      .array(offset: offset + delta, label: joinLabel(prefix, label), element: element)
    case let .dictionary(offset, label, key, value):
      .dictionary(offset: offset + delta, label: joinLabel(prefix, label), key: key, value: value)
    case let .set(offset, label, element):
      .set(offset: offset + delta, label: joinLabel(prefix, label), element: element)
    case let .string(offset, label):
      .string(offset: offset + delta, label: joinLabel(prefix, label))
    case let .continuation(offset, label):
      .continuation(offset: offset + delta, label: joinLabel(prefix, label))
    case let .opaque(offset, label, reason):
      .opaque(offset: offset + delta, label: joinLabel(prefix, label), reason: reason)
    }
  }

  /// Whether reading the item can find a reference or a diagnostic: false for a string, and for
  /// a collection or enum that holds only values without references (`[Int]`, `[String: [Int]]`,
  /// `String?`), whose reading only finds the storage they own.
  var holdsReferences: Bool {
    switch self {
    case .string: false
    case let .array(_, _, element), let .set(_, _, element): element.holdsReferences
    case let .dictionary(_, _, key, value): key.holdsReferences || value.holdsReferences
    case let .enumeration(_, _, _, cases): cases.contains { $0.isIndirect || ($0.payload ?? []).contains(where: \.holdsReferences) }
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
