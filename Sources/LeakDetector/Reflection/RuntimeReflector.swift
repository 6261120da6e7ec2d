import CLeakRuntime
import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

/// Reads the references of live heap objects from the Swift runtime's reflection metadata.
///
/// Layouts come from RemoteMirror (`libswiftRemoteMirror`, used in-process over a
/// `process_vm_readv` reader): for a class, the fields of every class in its superclass chain;
/// for a value type, its fields, tuple elements, enum cases or collection storage, recursively.
/// A layout is computed once per type and cached; reading an instance then follows the cached
/// items, asking RemoteMirror only for what varies per instance (the case of an enum, the
/// content of an existential, the captures of a closure context).
///
/// Callers must keep the object alive (retained) while it is read. Every pointer that leads
/// away from the object (collection storage, boxes) is checked with a fault-safe read before it
/// is followed, so a corrupt or concurrently changed value becomes a diagnostic, not a crash.
final class RuntimeReflector: Sendable {
  static let shared = RuntimeReflector()

  /// What ``reflect(address:asBox:)`` read of an object: its kind (`nil` when it is no readable
  /// heap object), the name of its type, its references and diagnostics, and the storage its
  /// values own.
  typealias Reflection = (
    kind: HeapObjectKind?, typeName: String, references: [RawReference], diagnostics: [String], storage: [OwnedStorage]
  )

  private let state: Locked<State>

  private init() {
    state = Locked(State(context: cleak_reflection_context_create()), protectedAcrossFork: true)
  }

  /// The references and diagnostics of the heap object at `address`, and the storage its
  /// values own (``OwnedStorage``: collection storage and string buffers, at any depth).
  func reflect(address: UInt, asBox: Bool = false) -> Reflection {
    state.withLock { state in
      var references: [RawReference] = []
      var diagnostics: [String] = []
      var storage: [OwnedStorage] = []
      guard let metadata = MemoryReader.readWord(at: address), let kindWord = MemoryReader.readWord(at: metadata),
        let kind = HeapObjectKind.of(kindWord: kindWord)
      else {
        return (nil, "<not a heap object>", [], ["0x\(String(address, radix: 16)) is not a readable heap object"], [])
      }
      switch kind {
      case .classInstance:
        guard let layout = state.knownClassLayout(metadata: metadata) else {
          return (nil, "<unknown object>", [], ["0x\(String(address, radix: 16)) has no known class metadata; it was not read"], [])
        }
        diagnostics += layout.diagnostics
        state.collect(
          layout.items, at: address, prefix: "", masked: false, depth: 0, into: &references, diagnostics: &diagnostics,
          storage: &storage)
        return (kind, layout.typeName, references, diagnostics, storage)
      case .task:
        return (kind, "Task", [], [], [])  // read by HiddenReferences
      case .closureContext, .box:
        state.collectCaptures(
          ofContext: address, metadata: metadata, kind: kind, asBox: asBox, into: &references, diagnostics: &diagnostics,
          storage: &storage)
        return (kind, kind == .box || asBox ? "box" : "closure context", references, diagnostics, storage)
      }
    }
  }

  /// The references held by the collection whose storage the word at `slot` refers to (a global
  /// `[Item]`, `[Key: Item]` or `Set<Item>`), labelled as its elements: `[0]`, `["key"]`.
  func referencesOfCollection(heldAt slot: UInt) -> [RawReference] {
    state.withLock { state in
      guard let context = state.context, let storage = MemoryReader.readWord(at: slot),
        let metadata = MemoryReader.readWord(at: cleak_reference_in_word(storage))
      else {
        return []
      }
      let typeRef = swift_reflection_typeRefForMetadata(context, metadata)
      guard typeRef != 0, let collection = StandardCollection(storageClassName: state.name(ofTypeRef: typeRef)) else { return [] }
      let item = collection.item { state.elementLayout(swift_reflection_genericArgumentOfTypeRef(typeRef, $0), depth: 0) }
      guard item.holdsReferences else { return [] }
      var references: [RawReference] = []
      var diagnostics: [String] = []
      var owned: [OwnedStorage] = []  // a global's: no object owns it
      state.collect(
        [item], at: slot, prefix: "", masked: false, depth: 0, into: &references, diagnostics: &diagnostics, storage: &owned)
      return references
    }
  }

  /// The offset of the stored property `name` of the object at `address` (its own class's or a
  /// superclass's), from the runtime's field offsets: for fields whose type reflection cannot
  /// describe (a `Mutex`), whose content a ``HiddenReferences`` reader knows instead.
  func storedPropertyOffset(named name: String, ofObjectAt address: UInt) -> Int? {
    var metadata = MemoryReader.readWord(at: address).flatMap { $0 == 0 ? nil : ClassMetadata(address: $0) }
    for _ in 0..<64 {
      guard let current = metadata else { break }
      if let names = current.fieldNames, let offsets = current.fieldOffsets, names.count == offsets.count,
        let index = names.firstIndex(of: name)
      {
        return offsets[index]
      }
      metadata = current.superclass
    }
    return nil
  }

  /// The type name of the class whose metadata is `metadata`, or `nil` when reflection does not
  /// know it (then the word is probably not class metadata at all).
  func className(metadata: UInt) -> String? {
    state.withLock { state in
      let name = state.className(metadata: metadata)
      return name == State.unknownClassName ? nil : name
    }
  }

  /// Whether the class whose metadata is `metadata` declares its references through
  /// ``LeakReflectable``: asked of the runtime once per class (a conformance lookup walks the
  /// class's superclasses, and a capture asks it of every object).
  func isLeakReflectable(metadata: UInt) -> Bool {
    state.withLock { state in
      if let known = state.leakReflectableClasses[metadata] { return known }
      // A memory image's classes are not this process's: its conformances cannot be asked.
      guard !cleak_reads_memory_image(), let pointer = UnsafeRawPointer(bitPattern: metadata) else { return false }
      let conforms = unsafeBitCast(pointer, to: Any.Type.self) is LeakReflectable.Type
      state.leakReflectableClasses[metadata] = conforms
      return conforms
    }
  }
}

/// A reference as read from memory, before its target is named.
struct RawReference: Sendable {
  var label: String
  var ownership: Ownership
  var target: UInt
  /// For a closure: the code pointer, to name its context.
  var function: UInt = 0
  /// For a captured-`var` box: the boxed type.
  var boxedType: String?
  /// Read from untyped memory (a task's async frames) or a continuation: a reference only if the target's
  /// reference count has a retain that no precise reference explains.
  var isConservative = false
  /// Whether the retain of the target is this reference's own: false for an edge that stands for
  /// an owner elsewhere (a notification token's `registration`: the centre retains the block).
  var retainsTarget = true
}

/// The cached layout of a class and its superclasses.
struct ClassLayout: Sendable {
  var typeName: String
  var items: [LayoutItem]
  var diagnostics: [String]
}

/// A closure context's layout is cached per metadata, and per how the context is read.
struct ClosureLayoutKey: Hashable, Sendable {
  var metadata: UInt
  var asBox: Bool
}

/// Where a native `Dictionary` or `Set` storage class keeps its fields.
struct HashedStorageLayout: Sendable {
  var countOffset: Int
  var scaleOffset: Int
  var keysOffset: Int
  var valuesOffset: Int?
  var bitmapOffset: Int
}

extension RuntimeReflector {
  /// Everything behind the lock: the RemoteMirror context (not thread-safe) and the caches.
  struct State: @unchecked Sendable {
    let context: SwiftReflectionContextRef?
    var classLayouts: [UInt: ClassLayout] = [:]
    var classNames: [UInt: String] = [:]
    var typeLayouts: [UInt64: [LayoutItem]] = [:]
    var elementLayouts: [UInt64: ElementLayout] = [:]
    var hashedStorageLayouts: [UInt: HashedStorageLayout?] = [:]
    var runtimeTypes: [UInt64: Any.Type?] = [:]
    var shortNames: [UInt64: String] = [:]
    var closureLayouts: [ClosureLayoutKey: [LayoutItem]] = [:]
    var leakReflectableClasses: [UInt: Bool] = [:]

    static let maximumDepth = 48

    init(context: SwiftReflectionContextRef?) {
      self.context = context
    }

    // MARK: - Names

    /// ``shortTypeName(_:)`` of the type `typeRef` names, cached (closure capture labels use it
    /// for every context).
    mutating func shortName(ofTypeRef typeRef: UInt64) -> String {
      if let cached = shortNames[typeRef] { return cached }
      let short = shortTypeName(name(ofTypeRef: typeRef))
      shortNames[typeRef] = short
      return short
    }

    func name(ofTypeRef typeRef: UInt64) -> String {
      guard let context, typeRef != 0, let pointer = swift_reflection_copyNameForTypeRef(context, typeRef, false) else {
        return "<unknown type>"
      }
      defer { free(pointer) }
      return String(cString: pointer)
    }

    static let unknownClassName = "<unknown class>"

    mutating func className(metadata: UInt) -> String {
      if let name = classNames[metadata] { return name }
      var name = Self.unknownClassName
      // A class's descriptor is static data of the image that defines it: a word that only looks
      // like class metadata (a freed block's link into malloc's arena, read while a capture
      // follows a field another thread was changing) has none there, and is no object.
      if let context, let descriptor = ClassMetadata(address: metadata).classDescriptor, cleak_is_in_loaded_image(descriptor) {
        let typeRef = swift_reflection_typeRefForMetadata(context, metadata)
        if typeRef != 0 { name = self.name(ofTypeRef: typeRef) }
      }
      classNames[metadata] = name
      return name
    }

    // MARK: - Layouts

    /// The layout of the class whose metadata is `metadata`, or `nil` when it is not a class the
    /// reflection library knows. One dictionary lookup for a class seen before.
    mutating func knownClassLayout(metadata: UInt) -> ClassLayout? {
      if let layout = classLayouts[metadata] { return layout.typeName == Self.unknownClassName ? nil : layout }
      return className(metadata: metadata) == Self.unknownClassName ? nil : classLayout(metadata: metadata)
    }

    mutating func classLayout(metadata: UInt) -> ClassLayout {
      if let layout = classLayouts[metadata] { return layout }
      var layout = ClassLayout(typeName: className(metadata: metadata), items: [], diagnostics: [])
      guard let context else {
        layout.diagnostics.append("the Swift reflection library is unavailable; no references are visible")
        return layout
      }
      var current = metadata
      var level = 0
      while current != 0 && level < 64 {
        let info = swift_reflection_infoForMetadata(context, current)
        if info.Kind == SWIFT_CLASS_INSTANCE {
          // The runtime's own field offsets, where the metadata has them: the reflection
          // library's are a word off for classes two or more levels below their root class.
          let offsets = ClassMetadata(address: current).fieldOffsets.flatMap { $0.count == Int(info.NumFields) ? $0 : nil }
          for index in 0..<info.NumFields {
            let child = swift_reflection_childOfMetadata(context, current, index)
            var label = child.Name.map { String(cString: $0) } ?? "field \(index)"
            if label.hasPrefix(Self.lazyStoragePrefix) { label.removeFirst(Self.lazyStoragePrefix.count) }
            let offset = offsets?[Int(index)] ?? Int(child.Offset)
            layout.items += items(kind: child.Kind, typeRef: child.TR, label: label, offset: offset, depth: 0)
          }
        } else if level == 0 || info.Kind == SWIFT_UNKNOWN {
          layout.diagnostics.append(
            "\(className(metadata: current)) has no reflection metadata, or a stored property whose layout it cannot describe;"
              + " its stored properties are not visible")
        }
        current = ClassMetadata(address: current).superclass?.address ?? 0
        level += 1
      }
      classLayouts[metadata] = layout
      return layout
    }

    /// The items of a value of type `typeRef` stored at offset 0.
    mutating func layout(ofTypeRef typeRef: UInt64, depth: Int) -> [LayoutItem] {
      if let cached = typeLayouts[typeRef] { return cached }
      guard let context, depth < Self.maximumDepth else {
        return [.opaque(offset: 0, label: "", reason: "nested more than \(Self.maximumDepth) levels")]
      }
      let info = swift_reflection_infoForTypeRef(context, typeRef)
      let result: [LayoutItem]
      switch info.Kind {
      case SWIFT_STRUCT:
        result = structLayout(typeRef: typeRef, info: info, depth: depth)
      case SWIFT_TUPLE:
        let labels = tupleLabels(name(ofTypeRef: typeRef), count: Int(info.NumFields))
        result = (0..<info.NumFields).flatMap { index in
          let child = swift_reflection_childOfTypeRef(context, typeRef, index)
          let name = child.Name.map { String(cString: $0) } ?? ""
          let label = !name.isEmpty ? name : labels[Int(index)] ?? "\(index)"
          return items(kind: child.Kind, typeRef: child.TR, label: label, offset: Int(child.Offset), depth: depth + 1)
        }
      case SWIFT_SINGLE_PAYLOAD_ENUM, SWIFT_MULTI_PAYLOAD_ENUM:
        result = enumLayout(typeRef: typeRef, info: info, depth: depth)
      default:
        result = items(kind: info.Kind, typeRef: typeRef, label: "", offset: 0, depth: depth + 1)
      }
      typeLayouts[typeRef] = result
      return result
    }

    /// The items of one field (or element) of kind `kind` and type `typeRef`.
    mutating func items(kind: swift_layout_kind_t, typeRef: UInt64, label: String, offset: Int, depth: Int) -> [LayoutItem] {
      switch kind {
      case SWIFT_STRONG_REFERENCE:
        return [.reference(offset: offset, label: label, ownership: .strong, boxedType: boxedType(name(ofTypeRef: typeRef)))]
      case SWIFT_WEAK_REFERENCE:
        return [.reference(offset: offset, label: label, ownership: .weak, boxedType: nil)]
      case SWIFT_UNOWNED_REFERENCE:
        return [.reference(offset: offset, label: label, ownership: .unowned, boxedType: nil)]
      case SWIFT_UNMANAGED_REFERENCE:
        return [.reference(offset: offset, label: label, ownership: .unmanaged, boxedType: nil)]
      case SWIFT_THICK_FUNCTION:
        return [.function(offset: offset, label: label)]
      case SWIFT_CLASS_EXISTENTIAL:
        // Word 0 is the object; its ownership is that of the existential's `object` child.
        let ownership: Ownership
        switch context.map({ swift_reflection_childOfTypeRef($0, typeRef, 0).Kind }) {
        case SWIFT_WEAK_REFERENCE: ownership = .weak
        case SWIFT_UNOWNED_REFERENCE: ownership = .unowned
        case SWIFT_UNMANAGED_REFERENCE: ownership = .unmanaged
        default: ownership = .strong
        }
        return [.reference(offset: offset, label: label, ownership: ownership, boxedType: nil)]
      case SWIFT_OPAQUE_EXISTENTIAL:
        return [.existential(offset: offset, label: label, typeRef: typeRef)]
      case SWIFT_ERROR_EXISTENTIAL:
        return [.errorExistential(offset: offset, label: label, typeRef: typeRef)]
      case SWIFT_STRUCT, SWIFT_TUPLE, SWIFT_SINGLE_PAYLOAD_ENUM, SWIFT_MULTI_PAYLOAD_ENUM:
        return layout(ofTypeRef: typeRef, depth: depth + 1).map { $0.nested(at: offset, under: label) }
      case _ where typeRef != 0 && name(ofTypeRef: typeRef) == "Builtin.RawUnsafeContinuation":
        return [.continuation(offset: offset, label: label)]
      case SWIFT_UNKNOWN where typeRef != 0:
        return [.opaque(offset: offset, label: label, reason: "no layout is known for \(name(ofTypeRef: typeRef))")]
      default:
        return []  // builtins, raw pointers, metatypes, enums without payload: no references
      }
    }

    private mutating func structLayout(typeRef: UInt64, info: swift_typeinfo_t, depth: Int) -> [LayoutItem] {
      guard let context else { return [] }
      let name = name(ofTypeRef: typeRef)
      if name == "Swift.String" { return [.string(offset: 0, label: "")] }
      if let collection = StandardCollection(valueTypeName: name) {
        return [collection.item { elementLayout(swift_reflection_genericArgumentOfTypeRef(typeRef, $0), depth: depth) }]
      }
      return (0..<info.NumFields).flatMap { index in
        let child = swift_reflection_childOfTypeRef(context, typeRef, index)
        let label = child.Name.map { String(cString: $0) } ?? "\(index)"
        return items(kind: child.Kind, typeRef: child.TR, label: label, offset: Int(child.Offset), depth: depth + 1)
      }
    }

    private mutating func enumLayout(typeRef: UInt64, info: swift_typeinfo_t, depth: Int) -> [LayoutItem] {
      guard let context else { return [] }
      let isOptional = name(ofTypeRef: typeRef).hasPrefix("Swift.Optional<")
      var cases: [EnumCaseLayout] = []
      for index in 0..<info.NumFields {
        let child = swift_reflection_childOfTypeRef(context, typeRef, index)
        let runtimeName = child.Name.map { String(cString: $0) } ?? "case \(index)"
        let caseName = isOptional ? "" : runtimeName
        guard child.TR != 0 else {
          cases.append(EnumCaseLayout(name: caseName, runtimeName: runtimeName, payload: nil, isIndirect: false))
          continue
        }
        let isIndirect = child.Kind == SWIFT_STRONG_REFERENCE && name(ofTypeRef: child.TR) == "Builtin.NativeObject"
        let payload = isIndirect ? [] : items(kind: child.Kind, typeRef: child.TR, label: "", offset: 0, depth: depth + 1)
        cases.append(EnumCaseLayout(name: caseName, runtimeName: runtimeName, payload: payload, isIndirect: isIndirect))
      }
      if !cases.contains(where: { $0.isIndirect || !($0.payload ?? []).isEmpty }) { return [] }
      // `T?` of a single reference, closure or collection: nil is a null word, no projection
      // needed.
      if isOptional, let payload = cases.first?.payload, payload.count == 1, !cases[0].isIndirect {
        switch payload[0] {
        case .reference(0, _, let ownership, _) where ownership != .weak: return payload
        case .function(0, _), .array(0, _, _), .dictionary(0, _, _, _), .set(0, _, _): return payload
        default: break
        }
      }
      return [.enumeration(offset: 0, label: "", typeRef: typeRef, cases: cases)]
    }

    mutating func elementLayout(_ typeRef: UInt64, depth: Int) -> ElementLayout {
      if let cached = elementLayouts[typeRef] { return cached }
      guard let context, typeRef != 0 else { return ElementLayout(items: [], stride: 1, typeName: "") }
      let info = swift_reflection_infoForTypeRef(context, typeRef)
      let element = ElementLayout(
        items: layout(ofTypeRef: typeRef, depth: depth + 1), stride: max(Int(info.Stride), 1), typeName: name(ofTypeRef: typeRef))
      elementLayouts[typeRef] = element
      return element
    }

    /// The storage of a `lazy var x` is named `$__lazy_storage_$_x`; labels say `x`.
    static let lazyStoragePrefix = "$__lazy_storage_$_"

    /// The element labels of a tuple type's name: `"(Swift.Int, next: Foo)"` → `[nil, "next"]`.
    func tupleLabels(_ name: String, count: Int) -> [String?] {
      guard name.first == "(", name.last == ")" else { return Array(repeating: nil, count: count) }
      var labels: [String?] = []
      var depth = 0
      var element = ""
      func finish() {
        let trimmed = element.drop { $0 == " " }
        if let colon = trimmed.firstIndex(of: ":"), trimmed[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }),
          trimmed.index(after: colon) < trimmed.endIndex, trimmed[trimmed.index(after: colon)] == " "
        {
          labels.append(String(trimmed[..<colon]))
        } else {
          labels.append(nil)
        }
        element = ""
      }
      for character in name.dropFirst().dropLast() {
        switch character {
        case "(", "<", "[": depth += 1
        case ")", ">", "]": depth -= 1
        case "," where depth == 0:
          finish()
          continue
        default: break
        }
        element.append(character)
      }
      finish()
      return labels.count == count ? labels : Array(repeating: nil, count: count)
    }

    /// The runtime's metadata for the type `typeRef` names, resolved from its mangled name; `nil`
    /// when the runtime cannot resolve it (a type local to a function, say), or when the capture
    /// reads a memory image (this process's runtime knows none of its types).
    mutating func runtimeType(ofTypeRef typeRef: UInt64) -> Any.Type? {
      if let cached = runtimeTypes[typeRef] { return cached }
      var resolved: Any.Type?
      if !cleak_reads_memory_image(), let context, let pointer = swift_reflection_copyNameForTypeRef(context, typeRef, true) {
        var mangled = String(cString: pointer)
        free(pointer)
        if mangled.hasPrefix("$s") { mangled.removeFirst(2) }
        resolved = _typeByName(mangled)
      }
      runtimeTypes[typeRef] = .some(resolved)
      return resolved
    }

    /// `"<> { var Swift.Int } <>"` → `"Swift.Int"`: the type a captured-`var` box holds.
    func boxedType(_ name: String) -> String? {
      guard let open = name.firstRange(of: "{ var "), let close = name.lastIndex(of: "}"), open.upperBound <= close else {
        return nil
      }
      return String(name[open.upperBound..<close]).trimmingTrailingSpaces
    }

    mutating func hashedStorageLayout(metadata: UInt) -> HashedStorageLayout? {
      if let cached = hashedStorageLayouts[metadata] { return cached }
      guard let context else { return nil }
      var offsets: [String: Int] = [:]
      var current = metadata
      var level = 0
      while current != 0 && level < 8 {
        let info = swift_reflection_infoForMetadata(context, current)
        for index in 0..<info.NumFields {
          let child = swift_reflection_childOfMetadata(context, current, index)
          if let name = child.Name { offsets[String(cString: name)] = Int(child.Offset) }
        }
        current = ClassMetadata(address: current).superclass?.address ?? 0
        level += 1
      }
      let size = Int(swift_reflection_infoForMetadata(context, metadata).Size)
      var layout: HashedStorageLayout?
      if let count = offsets["_count"], let scale = offsets["_scale"], size > 0,
        let keys = offsets["_rawKeys"] ?? offsets["_rawElements"]
      {
        layout = HashedStorageLayout(
          countOffset: count, scaleOffset: scale, keysOffset: keys, valuesOffset: offsets["_rawValues"],
          bitmapOffset: (size + 7) & ~7)
      }
      hashedStorageLayouts[metadata] = layout
      return layout
    }
  }
}

extension String {
  fileprivate var trimmingTrailingSpaces: String {
    var text = self
    while text.last == " " { text.removeLast() }
    return text
  }
}
