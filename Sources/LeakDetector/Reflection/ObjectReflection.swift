import CLeakRuntime
import HeapGraph

/// Everything reflection learned about one heap object.
///
/// ```swift
/// let reflection = reflect(feed)
/// print(reflection.typeName, reflection.references)
/// ```
/// ```text
/// MyApp.Feed [onUpdate -> closure #1 in MyApp.Feed.load() (strong), delegate -> MyApp.FeedController (weak)]
/// ```
public struct ObjectReflection: Sendable {
  /// The object's type name (a closure context is named by its function when known).
  public var typeName: String
  /// What the object is.
  public var kind: HeapObjectKind
  /// Its outgoing references, in layout order (superclass fields after the class's own).
  public var references: [ObjectReference]
  /// What could not be read: types without reflection metadata, unknown layouts, unreadable
  /// storage. Each names the field and the reason.
  public var diagnostics: [String]
  /// The heap storage the object's values own: the native storage of its arrays, dictionaries
  /// and sets and its strings' buffers, at any depth of nesting, and the storage inside that
  /// storage's elements when they are values. A capture adds their bytes to the object's size.
  package var ownedStorage: [OwnedStorage] = []
}

/// Every outgoing reference of `object`: stored properties of its class and superclasses, values
/// nested in structs, tuples, enum payloads and existentials, collection elements, and for a
/// closure context its captures. Weak, unowned and unmanaged references are listed with their
/// ownership.
///
/// ```swift
/// final class Feed { var onUpdate: (() -> Void)?; weak var delegate: FeedDelegate? }
/// references(of: feed).map(\.description)
/// ```
/// ```text
/// ["onUpdate -> closure #1 in MyApp.Feed.load() (strong)", "delegate -> MyApp.Controller (weak)"]
/// ```
public func references(of object: AnyObject) -> [ObjectReference] {
  reflect(object).references
}

/// The type, kind, references and diagnostics of `object`; see ``references(of:)``.
public func reflect(_ object: AnyObject) -> ObjectReflection {
  withExtendedLifetime(object) {
    LiveObjectReader().reflect(address: UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()))
  }
}

/// Names targets and turns raw references into ``ObjectReference`` values.
struct LiveObjectReader {
  var reflector = RuntimeReflector.shared
  /// What this reader learned of closure contexts, by address, when it reads a whole walk (a
  /// reader lives for one walk, and a context's captures never change); `nil` for a reader of
  /// one object, which has nothing to reuse (and allocates nothing for it).
  private let contexts: ContextMemo?

  /// A reader of one object, or of a walk's many (`remembersContexts`).
  init(remembersContexts: Bool = false) {
    contexts = remembersContexts ? ContextMemo() : nil
  }

  /// Reflects the object at `address`, which the caller keeps alive. `hint` says how the object
  /// was reached (through a closure, or as a captured-`var` box).
  func reflect(address: UInt, hint: TargetHint = .none) -> ObjectReflection {
    if let failure = RuntimeLayoutCheck.failure {
      return ObjectReflection(typeName: "<not read>", kind: .classInstance, references: [], diagnostics: [failure])
    }
    let result = hint.isBox ? reflector.reflect(address: address, asBox: true) : contextOrOtherReflection(of: address)
    let (kind, typeName) = describe(address: address, hint: hint) ?? (.classInstance, "<unreadable object>")
    var diagnostics = result.diagnostics
    var references: [ObjectReference] = []
    let hasReader = HiddenReferences.hasReader(typeName: typeName, kind: result.kind ?? kind)
    var raws = result.references
    if hasReader {
      let hidden = HiddenReferences(reflector: reflector).references(of: address, typeName: typeName, kind: result.kind ?? kind)
      raws += hidden.references
      diagnostics += hidden.diagnostics
    }
    references.reserveCapacity(raws.count)
    for raw in raws {
      if let reference = reference(from: raw) {
        references.append(reference)
      } else if !raw.isConservative && !hasReader
        && RuntimeKnowledge.opaqueRetainers[typeName] == nil  // those get a note of their own
      {
        diagnostics.append("\(raw.label): 0x\(String(raw.target, radix: 16)) is not a readable heap object; the reference was dropped")
      }
    }
    return ObjectReflection(
      typeName: typeName, kind: result.kind ?? kind, references: references, diagnostics: diagnostics, ownedStorage: result.storage)
  }

  /// The reference, or `nil` when its target is not a heap object reflection knows.
  func reference(from raw: RawReference) -> ObjectReference? {
    guard let (kind, typeName) = describe(address: raw.target, hint: TargetHint(raw)) else { return nil }
    var reference = ObjectReference(
      label: raw.label, ownership: raw.ownership, targetAddress: raw.target, targetKind: kind, targetTypeName: typeName)
    reference.closureFunction = raw.function
    reference.isConservative = raw.isConservative
    reference.retainsTarget = raw.retainsTarget
    return reference
  }

  /// The kind and name of the object at `address`, or `nil` when the address holds no heap
  /// object reflection knows (never retain, cast or read such an address), or when this
  /// runtime's layouts are not the known ones (``RuntimeLayoutCheck``).
  func describe(address: UInt, hint: TargetHint) -> (HeapObjectKind, String)? {
    guard RuntimeLayoutCheck.mismatch == nil, cleak_is_plausible_address(address, 8),
      let metadata = MemoryReader.readWord(at: address), metadata & 7 == 0,
      let kindWord = MemoryReader.readWord(at: metadata), let kind = HeapObjectKind.of(kindWord: kindWord)
    else {
      return nil
    }
    switch (kind, hint) {
    case (.classInstance, _):
      guard let name = reflector.className(metadata: metadata) else { return nil }
      return (kind, name)
    case (.task, _):
      return (kind, "Task")
    case (_, .box(let boxedType)):
      return (.box, "box<\(boxedType)>")
    case (_, .closure(let function)):
      let name = Symbolicator.shared.closureName(at: function) ?? "closure at 0x\(String(function, radix: 16))"
      return (kind, name == "reabstraction thunk" ? thunkName(context: address, kind: kind) : name)
    case (.box, .none):
      return (.box, "box")
    case (.closureContext, .none):
      return (kind, "closure context")
    }
  }
}

extension LiveObjectReader {
  /// A reabstraction thunk's context named by the closure it wraps, its first captured function:
  /// `reabstraction thunk of closure #1 in Container.register(_:)`.
  fileprivate func thunkName(context: UInt, kind: HeapObjectKind) -> String {
    if let known = contexts?.thunkNames[context] { return known }
    var name = "reabstraction thunk"
    if kind == .closureContext,
      let wrapped = contextOrOtherReflection(of: context).references.first(where: { $0.function != 0 }),
      let wrappedName = Symbolicator.shared.closureName(at: wrapped.function), wrappedName != "reabstraction thunk"
    {
      name = "reabstraction thunk of " + wrappedName
    }
    contexts?.thunkNames[context] = name
    return name
  }

  /// The reflection of the object at `address` (not as a box), remembered when it is a closure
  /// context: a thunk's context is reflected to be named, where a reference reaches it, and
  /// again where it is read; reading a context's captures asks the reflection library each time.
  fileprivate func contextOrOtherReflection(of address: UInt) -> RuntimeReflector.Reflection {
    if let known = contexts?.reflections[address] { return known }
    let reflection = reflector.reflect(address: address, asBox: false)
    if reflection.kind == .closureContext { contexts?.reflections[address] = reflection }
    return reflection
  }
}

/// What ``LiveObjectReader`` learned of closure contexts: their reflections and the names it
/// gave thunks, by the context's address.
private final class ContextMemo {
  var reflections: [UInt: RuntimeReflector.Reflection] = [:]
  var thunkNames: [UInt: String] = [:]
}

/// How a target was reached, which names objects that carry no type name of their own.
enum TargetHint: Sendable, Equatable {
  case none
  /// Through a closure whose code pointer is `function`.
  case closure(function: UInt)
  /// As the box of a captured `var` of `boxedType`.
  case box(boxedType: String)

  init(_ reference: RawReference) {
    if let boxedType = reference.boxedType {
      self = .box(boxedType: boxedType)
    } else if reference.function != 0 {
      self = .closure(function: reference.function)
    } else {
      self = .none
    }
  }

  var isBox: Bool {
    if case .box = self { true } else { false }
  }
}
