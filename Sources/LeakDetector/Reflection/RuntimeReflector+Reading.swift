import CLeakRuntime
import HeapGraph

extension RuntimeReflector.State {
  /// Reads `items` of a value at `base`, appending the references found and the storage the
  /// value owns (``OwnedStorage``: collection storage and string buffers, those inside the
  /// storage's elements too).
  ///
  /// - Parameter masked: the value is an enum payload, whose pointers may carry tag bits.
  mutating func collect(
    _ items: [LayoutItem], at base: UInt, prefix: String, masked: Bool, depth: Int,
    into references: inout [RawReference], diagnostics: inout [String],
    storage: inout [OwnedStorage]
  ) {
    guard depth < Self.maximumDepth else {
      diagnostics.append("\(prefix): values nested more than \(Self.maximumDepth) levels deep were not read")
      return
    }
    for item in items {
      switch item {
      case .reference(let offset, let label, let ownership, let boxedType):
        let slot = base &+ UInt(offset)
        var target: UInt
        switch ownership {
        case .weak: target = cleak_weak_load(slot)
        default: target = Self.word(at: slot)
        }
        if masked && ownership != .weak { target = cleak_reference_in_word(target) }
        guard target != 0 else { continue }
        references.append(RawReference(label: joinLabel(prefix, label), ownership: ownership, target: target, boxedType: boxedType))

      case .function(let offset, let label):
        let slot = base &+ UInt(offset)
        var context = Self.word(\cleak_thick_function.context, of: slot)
        if masked { context = cleak_reference_in_word(context) }
        guard context != 0 else { continue }
        let function = Self.word(\cleak_thick_function.function, of: slot)
        references.append(RawReference(label: joinLabel(prefix, label), ownership: .strong, target: context, function: function))

      case .existential(let offset, let label, let typeRef):
        collectExistential(
          at: base &+ UInt(offset), typeRef: typeRef, label: joinLabel(prefix, label), depth: depth,
          into: &references, diagnostics: &diagnostics, storage: &storage)

      case .errorExistential(let offset, let label, let typeRef):
        // The field holds a pointer to an error box; the value lives inside it.
        let box = cleak_reference_in_word(Self.word(at: base &+ UInt(offset)))
        guard box != 0 else { continue }
        guard MemoryReader.readWord(at: box) != nil else {
          diagnostics.append("\(joinLabel(prefix, label)): the error box at 0x\(String(box, radix: 16)) is not readable")
          continue
        }
        collectExistential(
          at: base &+ UInt(offset), typeRef: typeRef, label: joinLabel(prefix, label), depth: depth, unwrapping: true,
          into: &references, diagnostics: &diagnostics, storage: &storage)

      case .enumeration(let offset, let label, let typeRef, let cases):
        collectEnum(
          at: base &+ UInt(offset), typeRef: typeRef, cases: cases, label: joinLabel(prefix, label), depth: depth,
          into: &references, diagnostics: &diagnostics, storage: &storage)

      case .array(let offset, let label, let element):
        let buffer = cleak_reference_in_word(Self.word(at: base &+ UInt(offset)))
        let path = joinLabel(prefix, label)
        guard buffer != 0 else { continue }
        let elements = buffer &+ UInt(MemoryLayout<cleak_array_storage>.size)
        guard MemoryReader.readWord(at: buffer) != nil, let count = MemoryReader.read(\cleak_array_storage.count, of: buffer),
          count >= 0, count <= 1 << 36 / max(element.stride, 1),
          count == 0 || cleak_is_readable(elements, count * element.stride)  // bounds the loop by real memory
        else {
          diagnostics.append("\(path): the array storage at 0x\(String(buffer, radix: 16)) is not readable")
          continue
        }
        if let owned = StandardCollection.arrayStorage(at: buffer, elementStride: element.stride) { storage.append(owned) }
        guard !element.items.isEmpty else { continue }
        for index in 0..<count {
          collect(
            element.items, at: elements &+ UInt(index * element.stride),
            prefix: element.holdsReferences ? "\(path)[\(index)]" : path, masked: false, depth: depth + 1,
            into: &references, diagnostics: &diagnostics, storage: &storage)
        }

      case .dictionary(let offset, let label, let key, let value):
        collectHashed(
          at: base &+ UInt(offset), key: key, value: value, label: joinLabel(prefix, label), depth: depth,
          into: &references, diagnostics: &diagnostics, storage: &storage)

      case .set(let offset, let label, let element):
        collectHashed(
          at: base &+ UInt(offset), key: element, value: nil, label: joinLabel(prefix, label), depth: depth,
          into: &references, diagnostics: &diagnostics, storage: &storage)

      case .string(let offset, _):
        let owned = StringStorage.owned(byStringAt: base &+ UInt(offset)) { metadata in
          className(metadata: metadata) == StringStorage.sharedStorageClassName
        }
        if let owned { storage.append(owned) }

      case .continuation(let offset, let label):
        // Conservative: kept only where the task has a retain nothing else explains (its own,
        // while it waits), so a continuation kept after it resumed its task holds nothing.
        let task = Self.word(at: base &+ UInt(offset))
        guard ConcurrencyLayoutCheck.mismatch == nil, TaskReferences.isWaiting(task) else { continue }
        references.append(RawReference(label: joinLabel(prefix, label), ownership: .strong, target: task, isConservative: true))

      case .opaque(_, let label, let reason):
        diagnostics.append("\(joinLabel(prefix, label)): \(reason)")
      }
    }
  }

  /// Reads the value inside an existential container at `address`.
  private mutating func collectExistential(
    at address: UInt, typeRef: UInt64, label: String, depth: Int, unwrapping: Bool = false,
    into references: inout [RawReference], diagnostics: inout [String],
    storage: inout [OwnedStorage]
  ) {
    guard let context else { return }
    var instanceTypeRef: UInt64 = 0
    var start: UInt64 = 0
    let projected =
      unwrapping
      ? swift_reflection_projectExistentialAndUnwrapClass(context, UInt64(address), typeRef, &instanceTypeRef, &start)
      : swift_reflection_projectExistential(context, UInt64(address), typeRef, &instanceTypeRef, &start)
    guard projected != 0, instanceTypeRef != 0 else {
      // An empty `Any` (never assigned) has no type; anything else is worth a note.
      if Self.word(\cleak_opaque_existential.type, of: address) != 0 || unwrapping {
        diagnostics.append("\(label): could not read the content of the existential")
      }
      return
    }
    let info = swift_reflection_infoForTypeRef(context, instanceTypeRef)
    if unwrapping && info.Kind == SWIFT_STRONG_REFERENCE && name(ofTypeRef: instanceTypeRef).namesClass {
      // The unwrapping projection already gives the object itself.
      references.append(RawReference(label: label, ownership: .strong, target: UInt(start)))
      return
    }
    let items = layout(ofTypeRef: instanceTypeRef, depth: depth + 1)
    collect(
      items, at: UInt(start), prefix: label, masked: false, depth: depth + 1,
      into: &references, diagnostics: &diagnostics, storage: &storage)
  }

  private mutating func collectEnum(
    at address: UInt, typeRef: UInt64, cases: [EnumCaseLayout], label: String, depth: Int,
    into references: inout [RawReference], diagnostics: inout [String],
    storage: inout [OwnedStorage]
  ) {
    guard let context else { return }
    let caseIndex: Int
    if let type = runtimeType(ofTypeRef: typeRef) {
      // The runtime's own answer, from the type's `getEnumTag` witness, which only reads the
      // value (RemoteMirror's projection misreads enums whose payload is a generic enum, such as
      // `Result`). Tags number the payload cases first, as the cases' field records do.
      let tag = Int(cleak_enum_tag(address, unsafeBitCast(type, to: UInt.self)))
      guard tag >= 0, tag < cases.count else {
        diagnostics.append("\(label): could not tell which case of \(name(ofTypeRef: typeRef)) is stored")
        return
      }
      caseIndex = tag
    } else {
      var projected: Int32 = -1
      guard swift_reflection_projectEnumValue(context, UInt64(address), typeRef, &projected) != 0,
        projected >= 0, Int(projected) < cases.count
      else {
        diagnostics.append("\(label): could not tell which case of \(name(ofTypeRef: typeRef)) is stored")
        return
      }
      caseIndex = Int(projected)
    }
    let selected = cases[caseIndex]
    guard let payload = selected.payload else { return }
    let path = joinLabel(label, selected.name)
    guard selected.isIndirect else {
      collect(
        payload, at: address, prefix: path, masked: true, depth: depth + 1,
        into: &references, diagnostics: &diagnostics, storage: &storage)
      return
    }
    // `indirect`: the payload lives in a heap box, read through it (the box is not a node).
    let box = cleak_reference_in_word(Self.word(at: address))
    guard box != 0, MemoryReader.readWord(at: box) != nil else {
      diagnostics.append("\(path): the indirect payload box is not readable")
      return
    }
    let info = swift_reflection_infoForInstance(context, box)
    guard info.Kind == SWIFT_CLOSURE_CONTEXT, info.NumFields == 1 else {
      diagnostics.append("\(path): the indirect payload box has an unknown layout")
      return
    }
    let child = swift_reflection_childOfInstance(context, box, 0)
    let items = items(kind: child.Kind, typeRef: child.TR, label: "", offset: Int(child.Offset), depth: depth + 1)
    collect(
      items, at: box, prefix: path, masked: false, depth: depth + 1,
      into: &references, diagnostics: &diagnostics, storage: &storage)
  }

  /// Reads the occupied buckets of native `Dictionary` (`value` given) or `Set` storage, and
  /// counts the storage's allocation.
  private mutating func collectHashed(
    at address: UInt, key: ElementLayout, value: ElementLayout?, label: String, depth: Int,
    into references: inout [RawReference], diagnostics: inout [String],
    storage: inout [OwnedStorage]
  ) {
    let buffer = cleak_reference_in_word(Self.word(at: address))
    guard buffer != 0, let metadata = MemoryReader.readWord(at: buffer) else {
      diagnostics.append("\(label): the hashed storage is not readable")
      return
    }
    guard let layout = hashedStorageLayout(metadata: metadata) else {
      diagnostics.append("\(label): unknown layout of \(className(metadata: metadata))")
      return
    }
    guard let count = MemoryReader.readWord(at: buffer &+ UInt(layout.countOffset)).map({ Int(bitPattern: $0) }), count >= 0,
      let scaleWord = MemoryReader.readWord(at: buffer &+ UInt(layout.scaleOffset))
    else { return }
    let scale = Int(Int8(truncatingIfNeeded: scaleWord))
    guard (0...40).contains(scale), count <= 1 << scale else {
      diagnostics.append("\(label): implausible hashed storage (scale \(scale), count \(count))")
      return
    }
    let keys = Self.word(at: buffer &+ UInt(layout.keysOffset))
    let values = layout.valuesOffset.map { Self.word(at: buffer &+ UInt($0)) } ?? 0
    let bucketCount = 1 << scale
    let owned = StandardCollection.hashedStorage(
      at: buffer, lastArray: value == nil ? keys : values, bucketCount: bucketCount, stride: (value ?? key).stride)
    if let owned { storage.append(owned) }
    guard count > 0, !key.items.isEmpty || !(value?.items.isEmpty ?? true) else {
      return  // empty (the shared empty singleton too), or nothing to read in the elements
    }
    // Bound the loops by real memory: the bitmap, the keys and the values must all be readable.
    guard cleak_is_readable(buffer &+ UInt(layout.bitmapOffset), (bucketCount + 63) / 64 * 8),
      cleak_is_readable(keys, bucketCount * max(key.stride, 1)),
      value == nil || cleak_is_readable(values, bucketCount * max(value?.stride ?? 1, 1))
    else {
      diagnostics.append("\(label): the hashed storage at 0x\(String(buffer, radix: 16)) is not readable")
      return
    }
    for wordIndex in 0..<((bucketCount + 63) / 64) {
      var bits = Self.word(at: buffer &+ UInt(layout.bitmapOffset + wordIndex * 8))
      while bits != 0 {
        let bucket = wordIndex * 64 + bits.trailingZeroBitCount
        bits &= bits - 1
        guard bucket < bucketCount else { break }
        let keyAddress = keys &+ UInt(bucket * key.stride)
        if let value, !value.items.isEmpty {
          let keyText = value.holdsReferences ? Self.printableKey(at: keyAddress, typeName: key.typeName) ?? "value" : nil
          collect(
            value.items, at: values &+ UInt(bucket * value.stride), prefix: keyText.map { "\(label)[\($0)]" } ?? label,
            masked: false, depth: depth + 1, into: &references, diagnostics: &diagnostics, storage: &storage)
        }
        guard !key.items.isEmpty else { continue }
        collect(
          key.items, at: keyAddress,
          prefix: !key.holdsReferences ? label : value == nil ? "\(label)[element]" : "\(label)[key]", masked: false,
          depth: depth + 1, into: &references, diagnostics: &diagnostics, storage: &storage)
      }
    }
  }

  /// The captures of a closure context or box: `capture #0: Feed`, or `value` for a box.
  mutating func collectCaptures(
    ofContext address: UInt, metadata: UInt, kind: HeapObjectKind, asBox: Bool,
    into references: inout [RawReference], diagnostics: inout [String],
    storage: inout [OwnedStorage]
  ) {
    guard let context else { return }
    if kind == .box {
      // A generic box: its metadata says where the value starts and the boxed type.
      guard let valueOffset = MemoryReader.read(\cleak_generic_box_metadata.valueOffset, of: metadata),
        let boxed = MemoryReader.read(\cleak_generic_box_metadata.boxedType, of: metadata)
      else { return }
      let typeRef = swift_reflection_typeRefForMetadata(context, boxed)
      let info = swift_reflection_infoForTypeRef(context, typeRef)
      let items = items(kind: info.Kind, typeRef: typeRef, label: "value", offset: Int(valueOffset), depth: 0)
      collect(
        items, at: address, prefix: "", masked: false, depth: 0,
        into: &references, diagnostics: &diagnostics, storage: &storage)
      return
    }
    let key = ClosureLayoutKey(metadata: metadata, asBox: asBox)
    if let cached = closureLayouts[key] {
      collect(
        cached, at: address, prefix: "", masked: false, depth: 0,
        into: &references, diagnostics: &diagnostics, storage: &storage)
      return
    }
    let info = swift_reflection_infoForInstance(context, address)
    guard info.Kind == SWIFT_CLOSURE_CONTEXT else {
      diagnostics.append("closure context at 0x\(String(address, radix: 16)): its captures are not described (no capture metadata)")
      return
    }
    var layout: [LayoutItem] = []
    let shift = Self.captureOffsetShift(metadata: metadata)
    for index in 0..<info.NumFields {
      let child = swift_reflection_childOfInstance(context, address, index)
      let label = asBox ? "value" : "capture #\(index): \(shortName(ofTypeRef: child.TR))"
      layout += items(kind: child.Kind, typeRef: child.TR, label: label, offset: Int(child.Offset) + shift, depth: 0)
    }
    if Self.closureLayoutIsPerType(metadata: metadata) { closureLayouts[key] = layout }
    collect(
      layout, at: address, prefix: "", masked: false, depth: 0,
      into: &references, diagnostics: &diagnostics, storage: &storage)
  }

  /// What to add to RemoteMirror's capture offsets of a context with metadata `metadata`: the
  /// size of the object header when the metadata's offset to the first capture is 0, as the
  /// compiler writes it for a context whose layout is only known at run time (it captures a
  /// value of a resilient type, such as `AsyncStream.Continuation`). RemoteMirror lays the
  /// captures out from that offset, but the context's captures, like any, follow its header.
  static func captureOffsetShift(metadata: UInt) -> Int {
    let header = MemoryLayout<cleak_heap_object>.size
    guard let offset = MemoryReader.read(\cleak_closure_context_metadata.offsetToFirstCapture, of: metadata), offset < header
    else { return 0 }
    return header - Int(offset)
  }

  /// Whether every context with this metadata has the same captures at the same offsets: true
  /// unless the closure is generic, when the context itself holds the metadata its layout
  /// depends on. The context metadata's capture descriptor counts those metadata sources and
  /// bindings.
  static func closureLayoutIsPerType(metadata: UInt) -> Bool {
    guard let descriptor = MemoryReader.read(\cleak_closure_context_metadata.captureDescription, of: metadata), descriptor != 0,
      let sources = MemoryReader.read(\cleak_capture_descriptor.numMetadataSources, of: descriptor)
    else { return false }
    let bindings = MemoryReader.read(\cleak_capture_descriptor.numBindings, of: descriptor) ?? 1
    return sources == 0 && bindings == 0
  }

  // MARK: - Memory

  /// The word at `address`, which lies inside an object or storage the caller keeps alive.
  static func word(at address: UInt) -> UInt {
    address == 0 ? 0 : cleak_load_word(address)
  }

  /// The word-sized field `field` of the `Layout` at `base`, which lies inside an object or
  /// storage the caller keeps alive.
  static func word<Layout>(_ field: KeyPath<Layout, UInt>, of base: UInt) -> UInt {
    MemoryReader.address(of: field, in: base).map { word(at: $0) } ?? 0
  }

  /// The first bytes of the `String` stored at `address`, read from its two words without copying
  /// the value (a copy would retain its storage): a small string's bytes are inline; a native or
  /// literal one's follow the header of the object its second word points to. `nil` for bridged
  /// or foreign strings and unreadable storage. Keys longer than 64 bytes end with `…`.
  static func stringContents(at address: UInt) -> String? {
    let countAndFlags = UInt64(word(at: MemoryReader.address(of: \cleak_string.countAndFlags, in: address) ?? 0))
    let object = UInt64(word(at: MemoryReader.address(of: \cleak_string.object, in: address) ?? 0))
    let isSmall = object & cleak_string_small_flag != 0
    if isSmall {
      let count = Int((object >> cleak_string_small_count_shift) & cleak_string_small_count_mask)
      let bytes = withUnsafeBytes(of: (countAndFlags, object)) { Array($0.prefix(count)) }
      return String(decoding: bytes, as: UTF8.self)
    }
    let isTailAllocated = countAndFlags & cleak_string_tail_allocated_flag != 0
    guard isTailAllocated else { return nil }
    let count = Int(countAndFlags & cleak_string_count_mask)
    let limit = 64
    var bytes = [UInt8](repeating: 0, count: min(count, limit))
    let start = UInt(object & cleak_string_object_address_mask) + UInt(MemoryLayout<cleak_string_storage>.size)
    let copied = bytes.withUnsafeMutableBytes { cleak_read_memory($0.baseAddress, start, $0.count) }
    guard copied == bytes.count else { return nil }
    return String(decoding: bytes, as: UTF8.self) + (count > limit ? "…" : "")
  }

  /// `"key"` for a `String` key, `42` for an integer key, `nil` or `0x…` for an optional
  /// `String` or `ObjectIdentifier`, `nil` for other types.
  static func printableKey(at address: UInt, typeName: String) -> String? {
    guard address != 0 else { return nil }
    switch typeName {
    case "Swift.String":
      return stringContents(at: address).map(doubleQuoted)
    case "Swift.Optional<Swift.String>":
      return stringContents(at: address).map(doubleQuoted) ?? "nil"
    case "Swift.Optional<Swift.ObjectIdentifier>":
      let word = word(at: address)
      return word == 0 ? "nil" : "0x" + String(word, radix: 16)
    case "Swift.Int", "Swift.Int64": return "\(Int(bitPattern: word(at: address)))"
    case "Swift.UInt", "Swift.UInt64": return "\(word(at: address))"
    case "Swift.Int32": return "\(Int32(bitPattern: cleak_load_u32(address)))"
    case "Swift.UInt32": return "\(cleak_load_u32(address))"
    default: return nil
    }
  }
}

extension String {
  /// Whether this type name names a class, rather than a builtin reference (`Builtin.NativeObject`)
  /// that the unwrapping projection does not give as an object.
  fileprivate var namesClass: Bool { !hasPrefix("Builtin.") }
}

/// A type name for labels: `weak Swift.Optional<MyApp.Feed>` → `Feed?`, `<> { var Swift.Int } <>`
/// → `box<Int>`, module qualifiers dropped.
func shortTypeName(_ name: String) -> String {
  var text = Substring(name)
  for prefix in ["weak ", "unowned(unsafe) ", "unowned ", "@sil_weak ", "@sil_unowned "] where text.hasPrefix(prefix) {
    text = text.dropFirst(prefix.count)
  }
  if let open = text.firstRange(of: "{ var "), let close = text.lastIndex(of: "}") {
    return "box<\(shortTypeName(String(text[open.upperBound..<close]).trimmingCharacters(in: " ")))>"
  }
  var result = DemangledName.unqualified(text)
  if result.hasPrefix("Optional<"), result.hasSuffix(">") {
    result = String(result.dropFirst("Optional<".count).dropLast()) + "?"
  }
  return result
}

extension String {
  fileprivate func trimmingCharacters(in set: Character) -> String {
    var text = Substring(self)
    while text.first == set { text = text.dropFirst() }
    while text.last == set { text = text.dropLast() }
    return String(text)
  }
}
