import CLeakRuntime
import HeapGraph

/// The walk of one capture: from a set of start objects, reads each object's references and
/// records what it saw as a heap snapshot.
///
/// It runs inside a capture child (``CaptureProcess``), on a frozen copy of the heap: it never
/// retains, copies or releases what it reads, so no deinit can run, and objects cannot change
/// or disappear under it. Stacks are recorded as program counters only; the parent symbolizes
/// them (``CapturedHeap/symbolicated()``), where symbol caches outlive the child.
struct LiveHeapCapture {
  private let configuration: RetainCycleDetector.Configuration
  let progress: CaptureProcess.ProgressRecorder?
  private let reader = LiveObjectReader()
  private var builder: HeapSnapshot.Builder
  private var queue: [(address: UInt, typeName: String, kind: HeapObjectKind)] = []
  /// How many objects of `queue` have been expanded.
  private var expanded = 0
  private var nonRetaining: [(from: Int64, to: UInt, label: String, ownership: Ownership)] = []
  /// References read from untyped memory, kept by ``resolveConservativeReferences(retainedByCaller:)``
  /// where the target's reference count has room for them.
  private var conservative: [(from: Int64, to: UInt, label: String)] = []
  private var startIDs: [Int64] = []
  private var idByAddress: [UInt: Int64] = [:]
  /// The id of the next node: an object, or a closure value (``arrivalNode(of:targetID:)``).
  private var nextID: Int64 = 1
  /// Captured objects in the order they were reached.
  private var addresses: [UInt] = []
  private var diagnostics: [CaptureDiagnostic] = []
  private var closureStackIDs: [UInt: Int64] = [:]
  private var trackerStackIDs: [UInt32: Int64] = [:]
  private var notedTypes: Set<String> = []
  private var reachedMaxObjects = false
  /// How many strong references the walk recorded into each object, parallel ones included.
  private var strongReferencesInto: [UInt: Int] = [:]
  /// How many words of global data and thread-local storage refer to each object
  /// (``addRootsFound(in:)``): variables, which hold what they refer to.
  private var variableReferencesInto: [UInt: Int] = [:]
  /// The roots found in global data and thread-local storage, by index in the snapshot's roots,
  /// with the address of the word: the parent names them by the variable there.
  private var variableRootSlots: [(root: Int64, slot: UInt64)] = []

  init(
    configuration: RetainCycleDetector.Configuration, progress: CaptureProcess.ProgressRecorder?,
    metadata: HeapSnapshot.Metadata = .init(tool: "swift-leak-detector RetainCycleDetector")
  ) {
    self.configuration = configuration
    self.progress = progress
    builder = HeapSnapshot.Builder(metadata: metadata)
  }

  /// What the walk saw, with stacks as program counters.
  var result: CapturedHeap {
    var builder = builder
    for edge in nonRetaining {
      guard let target = idByAddress[edge.to] else { continue }
      builder.addReference(from: edge.from, to: target, label: edge.label, ownership: edge.ownership)
    }
    var snapshot = builder.snapshot
    snapshot.metadata.diagnosticRecords += diagnostics
    return CapturedHeap(
      snapshot: snapshot, startIDs: startIDs, closureStackIDs: Array(closureStackIDs.values),
      variableRoots: variableRootSlots.map(\.root), variableRootSlots: variableRootSlots.map(\.slot))
  }

  /// What a tracker knows about an object that reflection does not.
  struct Annotation {
    var generation: Int
    var size: Int
    var stackID: UInt32
  }

  /// Generations, sizes and allocation stacks to record for tracked objects.
  var annotations: [UInt: Annotation] = [:]

  /// Adds the object at `address` as a start of the walk.
  mutating func addStart(address: UInt) {
    guard let (kind, typeName) = reader.describe(address: address, hint: .none) else {
      diagnostics.append(.unknownMetadata(address: address))
      return
    }
    if let id = visit(address: address, typeName: typeName, kind: kind, function: 0) {
      startIDs.append(id)
    }
  }

  /// Reads objects until every strong reference has been followed (those queued since the last
  /// run only).
  mutating func run() {
    while expanded < queue.count {
      let object = queue[expanded]
      expanded += 1
      progress?.reading(object.address)
      expand(object.address, typeName: object.typeName, kind: object.kind)
    }
  }

  /// Marks as roots the objects something outside the walk holds: an object whose strong
  /// reference count exceeds the strong references the walk found into it, once those the
  /// caller holds for the capture (`retainedByCaller`) are subtracted, is held by a stack, a
  /// global or an object the walk did not see. This is CPython's cycle collector test
  /// (`gc_refs = refcount − internal references`; Python's `gcmodule.c`, `subtract_refs`):
  /// objects not reachable from such roots can only be reached from each other, so they leaked.
  ///
  /// The counts are those of the instant of the fork, as are the references, so they agree; a
  /// reference the reflection could not read makes its target a root, so errors go towards
  /// "held", never towards "leaked".
  ///
  /// With a `census` of the whole memory, a retain that no word of memory accounts for is not a
  /// root (``unbalancedRetains(among:census:)``): the object counts as leaked, with a diagnostic.
  mutating func addExternallyHeldObjectsAsRoots(retainedByCaller: [UInt: Int], census: ReferenceCensus? = nil) {
    resolveConservativeReferences(retainedByCaller: retainedByCaller)
    var held: [(address: UInt, id: Int64, count: Int)] = []
    for address in addresses {
      guard let id = idByAddress[address] else { continue }
      let external = unexplainedRetains(of: address, retainedByCaller: retainedByCaller)
      if external > 0 { held.append((address, id, external)) }
    }
    var unbalanced: [UInt: String] = [:]
    if var census {
      // Only objects the tracker saw allocated: static and immortal objects have counts of their own.
      unbalanced = unbalancedRetains(among: held.map(\.address).filter { annotations[$0] != nil }, census: &census)
    }
    for object in held {
      if let typeName = unbalanced[object.address] {
        diagnostics.append(UnbalancedRetain(typeName: typeName, address: UInt64(object.address), count: object.count).diagnostic)
      } else {
        let references = object.count == 1 ? "1 strong reference" : "\(object.count) strong references"
        builder.addRoot(object: object.id, kind: .external, label: references + " from outside the snapshot")
      }
    }
  }

  /// The strong retains of the captured object at `address` that neither the caller, the
  /// references the walk counted into it, nor global and thread-local words explain.
  private func unexplainedRetains(of address: UInt, retainedByCaller: [UInt: Int]) -> Int {
    cleak_strong_retain_count(address) - retainedByCaller[address, default: 0] - strongReferencesInto[address, default: 0]
      - variableReferencesInto[address, default: 0]
  }

  /// The objects among `candidates` (held from outside the walk by their reference counts) that
  /// no word of memory refers to, but for words inside captured objects whose references the walk
  /// already counted, with their type names: their extra retains are held by nothing. A word
  /// anywhere else (a C structure, a collection's buffer, a stack, an `Unmanaged` field, an
  /// interior pointer) keeps its object held, as do a failed census and more words than it lists.
  private func unbalancedRetains(among candidates: [UInt], census: inout ReferenceCensus) -> [UInt: String] {
    let sorted = candidates.sorted()
    var objects: [cleak_census_object] = []
    for (index, address) in sorted.enumerated() {
      var end = address + UInt(max(annotations[address]?.size ?? 0, 16))
      if index + 1 < sorted.count { end = min(end, sorted[index + 1]) }
      objects.append(cleak_census_object(start: address, end: end, sideTable: cleak_side_table_of(address)))
    }
    guard let results = census.wordsReferring(to: objects) else { return [:] }
    // Each unreferenced-looking target, with the captured objects its words lie in.
    var suspects: [(target: UInt, wordsBySource: [UInt: Int])] = []
    lazy var extents = CapturedExtents(addresses: addresses) { annotations[$0]?.size }
    for (target, result) in zip(sorted, results) where result.count <= UInt64(CLEAK_CENSUS_SLOTS) {
      let slots = withUnsafeBytes(of: result.slots) { Array($0.bindMemory(to: UInt.self).prefix(Int(result.count))) }
      let sources = slots.map { extents.object(containing: $0) }
      guard !sources.contains(nil) else { continue }
      suspects.append((target, sources.reduce(into: [:]) { $0[$1!, default: 0] += 1 }))
    }
    guard !suspects.isEmpty else { return [:] }
    var described: [UInt: (typeName: String, kind: HeapObjectKind)] = [:]
    let wanted = Set(suspects.flatMap { [$0.target] + $0.wordsBySource.keys })
    for object in queue where wanted.contains(object.address) { described[object.address] = (object.typeName, object.kind) }
    var unbalanced: [UInt: String] = [:]
    for suspect in suspects {
      let counted = suspect.wordsBySource.allSatisfy { source, words in
        described[source].map { countedReferences(from: source, described: $0, to: suspect.target) >= words } ?? false
      }
      if counted { unbalanced[suspect.target] = described[suspect.target]?.typeName ?? "an object" }
    }
    return unbalanced
  }

  /// The references from the captured object at `source` to `target` that the walk counted as
  /// retains (``expand(_:typeName:kind:)``'s rule).
  private func countedReferences(from source: UInt, described: (typeName: String, kind: HeapObjectKind), to target: UInt) -> Int {
    allReferences(of: source, kind: described.kind).references.count { reference in
      !reference.isConservative && reference.targetAddress == target && reference.retainsTarget
        && recorded(reference).ownership.isRetaining
        && !configuration.edgeFilters.contains(where: { $0(described.typeName, reference.label, reference.targetTypeName) })
    }
  }

  /// Keeps the conservative references (words of a task's async frames) that the targets'
  /// reference counts account for: one per retain that neither a precise reference, a global
  /// word nor the caller explains, in the order they were read. A stale word (a slot whose
  /// value was released) finds no such retain and is dropped, so it never makes a cycle. Only
  /// objects the walk captured are targets. Runs once; ``addExternallyHeldObjectsAsRoots(retainedByCaller:)``
  /// calls it first.
  mutating func resolveConservativeReferences(retainedByCaller: [UInt: Int]) {
    for edge in conservative {
      guard let target = idByAddress[edge.to], unexplainedRetains(of: edge.to, retainedByCaller: retainedByCaller) > 0 else { continue }
      builder.addReference(from: edge.from, to: target, label: edge.label, ownership: .strong)
      strongReferencesInto[edge.to, default: 0] += 1
    }
    conservative = []
  }

  /// Adds what libdispatch and the main run loop hold until it runs (``PendingDispatchWork``,
  /// ``RunLoopBlocks``, ``RunLoopTimers``) as roots of kind `runtime`, labelled by what holds
  /// it, when it holds what the walk captured: the closures of pending blocks whose context the
  /// walk captured or refers to a captured object itself (a closure that captures `self` and a
  /// value), and the tasks and timers that lead to a captured object within a few references.
  /// What is not captured yet is walked from there. A block's context is only looked into one
  /// level deep: a test process can hold thousands of pending blocks (XCTest's watchdogs), and
  /// walking what they reach made each check's capture 25 times slower. Call it after ``run()``
  /// and before ``addExternallyHeldObjectsAsRoots(retainedByCaller:)``, which then counts each
  /// holder's retain of what it holds.
  mutating func addPendingWorkRoots() {
    let captured = idByAddress
    let reflector = reader.reflector
    let keeping = { (context: UInt) in
      captured[context] != nil
        || reflector.reflect(address: context).references.contains { $0.ownership.isRetaining && captured[$0.target] != nil }
    }
    for work in PendingDispatchWork(keeping: keeping).work() + RunLoopBlocks.mainRunLoopWork(keeping: keeping) {
      guard let reference = reader.reference(from: work) else { continue }
      let targetID: Int64
      if let id = idByAddress[work.target] {
        targetID = id
      } else {
        // A block's context `keeping` accepted, or a task or timer that leads to what the walk captured.
        guard work.function != 0 || holdsCapturedObject(reference), let id = visit(reference) else { continue }
        targetID = id
        run()
      }
      strongReferencesInto[work.target, default: 0] += 1
      builder.addRoot(object: arrivalNode(of: reference, targetID: targetID), kind: .runtime, label: work.label)
    }
  }

  /// Whether the object `reference` targets leads, by at most four strong references and
  /// through at most 64 objects, to an object the walk captured: a task's closure holds its
  /// captures through a context, a timer's through its block.
  private func holdsCapturedObject(_ reference: ObjectReference) -> Bool {
    var level = [(reference.targetAddress, reference.targetKind)]
    var seen: Set<UInt> = [reference.targetAddress]
    for _ in 0..<4 {
      var next: [(UInt, HeapObjectKind)] = []
      for (address, kind) in level {
        for target in allReferences(of: address, kind: kind).references where target.ownership.isRetaining {
          if idByAddress[target.targetAddress] != nil { return true }
          guard seen.count < 64, seen.insert(target.targetAddress).inserted else { continue }
          next.append((target.targetAddress, target.targetKind))
        }
      }
      level = next
    }
    return false
  }

  /// Marks as roots the captured objects that a word of `regions` refers to (conservatively:
  /// any word that is an object's address once Swift's spare pointer bits are cleared), one root
  /// per object and region for stacks and thread-local storage (the thread-local one named in
  /// the parent by the variable at its first word, `App.current (main thread)`), one per word for
  /// global data (named in the parent by the variable that holds it). The elements of a
  /// collection a global word refers to are global roots too, labelled with the element's path
  /// (`[0]`, `["key"]`) after the word's address until the parent names the variable. Call it
  /// after ``run()``, and before ``addExternallyHeldObjectsAsRoots(retainedByCaller:)``, which
  /// then counts each global and thread-local word as one of the object's strong references
  /// (stack words are not: a stale slot is common there).
  mutating func addRootsFound(in regions: [RootRegion]) {
    cleak_refresh_readable_regions()  // the scans test words against the mappings as of now
    let sorted = addresses.sorted()
    for region in regions {
      var rootedHere = Set<UInt>()
      let hits = Self.hits { cleak_scan_for_objects(region.start, region.end, sorted, sorted.count, $0, $1) }
      for hit in hits {
        guard let id = idByAddress[hit.object] else { continue }
        if region.kind == .global {
          addGlobalRoot(id: id, object: hit.object, slot: hit.slot, path: "")
        } else if rootedHere.insert(hit.object).inserted {
          // A thread-local word is named in the parent by its variable, if one covers it.
          if region.kind == .threadLocal {
            variableRootSlots.append((Int64(builder.snapshot.roots.count), UInt64(hit.slot)))
            variableReferencesInto[hit.object, default: 0] += 1
          }
          builder.addRoot(object: id, kind: region.kind, label: region.label)
        }
      }
      if region.kind == .global { addElementRoots(ofCollectionsIn: region) }
    }
  }

  /// The global roots of ``addRootsFound(in:)`` held through collections in global data.
  private mutating func addElementRoots(ofCollectionsIn region: RootRegion) {
    let descriptors = RuntimeReflector.collectionStorageDescriptors
    let hits = Self.hits { cleak_scan_for_collection_storage(region.start, region.end, descriptors, descriptors.count, $0, $1) }
    for hit in hits {
      for element in reader.reflector.referencesOfCollection(heldAt: hit.slot) where element.ownership == .strong {
        guard let id = idByAddress[element.target] else { continue }
        addGlobalRoot(id: id, object: element.target, slot: hit.slot, path: element.label)
      }
    }
  }

  /// A root for the global word at `slot` that holds `object` (through `path`, the element's
  /// path when a collection holds it), counted as one of the object's strong references. Its
  /// label is the word's address then the path, until the parent names the variable.
  private mutating func addGlobalRoot(id: Int64, object: UInt, slot: UInt, path: String) {
    variableReferencesInto[object, default: 0] += 1
    variableRootSlots.append((Int64(builder.snapshot.roots.count), UInt64(slot)))
    builder.addRoot(object: id, kind: .global, label: "0x" + String(slot, radix: 16) + path)
  }

  /// Every hit of a scan that writes up to a capacity and returns how many there are: once more
  /// with room for all when the first buffer was too small.
  private static func hits(of scan: (UnsafeMutablePointer<cleak_reference_hit>, Int) -> Int) -> ArraySlice<cleak_reference_hit> {
    var hits = [cleak_reference_hit](repeating: cleak_reference_hit(), count: 1024)
    var count = hits.withUnsafeMutableBufferPointer { scan($0.baseAddress!, $0.count) }
    if count > hits.count {
      hits = [cleak_reference_hit](repeating: cleak_reference_hit(), count: count)
      count = min(hits.withUnsafeMutableBufferPointer { scan($0.baseAddress!, $0.count) }, hits.count)
    }
    return hits.prefix(count)
  }

  // MARK: - Steps

  /// Records an object the first time it is reached and queues it; returns its id, or `nil`
  /// when it was being deallocated at the instant of the capture (the reference is then dropped).
  private mutating func visit(address: UInt, typeName: String, kind: HeapObjectKind, function: UInt) -> Int64? {
    if let id = idByAddress[address] { return id }
    guard idByAddress.count < configuration.maxObjects else {
      if !reachedMaxObjects {
        reachedMaxObjects = true
        diagnostics.append(.objectLimit(configuration.maxObjects))
      }
      return nil
    }
    guard !cleak_is_deallocating(address) else {
      diagnostics.append(.deallocating(typeName: typeName, address: address))
      return nil
    }
    progress?.reading(address)
    let id = nextID
    nextID += 1
    idByAddress[address] = id
    addresses.append(address)
    var stack: Int64?
    var generation: Int?
    var size: Int?
    if kind == .closureContext, function != 0 {
      stack = stackID(forFunction: function)
    } else if kind == .task, let closure = TaskReferences(reflector: reader.reflector).closureFunction(ofTask: address), closure != 0 {
      stack = stackID(forFunction: closure)  // a task's "allocation site": the closure it runs, where `Task {` is written
    }
    if let annotation = annotations[address] {
      generation = annotation.generation
      size = annotation.size > 0 ? annotation.size : nil
      if annotation.stackID != 0 { stack = stackID(forTrackerStack: annotation.stackID) }
    }
    builder.addObject(id: id, type: typeName, address: UInt64(address), size: size, generation: generation, stack: stack, kind: kind)
    queue.append((address, typeName, kind))
    return id
  }

  /// ``visit(address:typeName:kind:function:)`` for the target of `reference`.
  private mutating func visit(_ reference: ObjectReference) -> Int64? {
    visit(
      address: reference.targetAddress, typeName: reference.targetTypeName, kind: reference.targetKind,
      function: reference.closureFunction)
  }

  /// The snapshot stack of an allocation stack recorded by the tracker, as return addresses.
  private mutating func stackID(forTrackerStack trackerID: UInt32) -> Int64 {
    if let id = trackerStackIDs[trackerID] { return id }
    let id = Int64(closureStackIDs.count + trackerStackIDs.count + 1)
    trackerStackIDs[trackerID] = id
    builder.addStack(id: id, frames: AllocationTracker.programCounters(ofStack: trackerID).map { StackFrame(pc: UInt64($0)) })
    return id
  }

  /// A closure context's "allocation site": the closure's own code address.
  private mutating func stackID(forFunction function: UInt) -> Int64 {
    if let id = closureStackIDs[function] { return id }
    let id = Int64(closureStackIDs.count + trackerStackIDs.count + 1)
    closureStackIDs[function] = id
    builder.addStack(id: id, frames: [StackFrame(pc: UInt64(function))])
    return id
  }

  /// Everything `address` references: reflected, declared and associated.
  private func allReferences(of address: UInt, kind: HeapObjectKind) -> (references: [ObjectReference], diagnostics: [String]) {
    let reflection = reader.reflect(address: address, hint: kind == .box ? .box(boxedType: "") : .none)
    var references = reflection.references
    references += declaredReferences(of: address, kind: kind)
    for association in Associations.strongValues(ofObjectAt: address) {
      guard let (targetKind, targetType) = reader.describe(address: association.address, hint: .none) else { continue }
      references.append(
        ObjectReference(
          label: "associated[\"\(association.key)\"]", ownership: .strong, targetAddress: association.address,
          targetKind: targetKind, targetTypeName: targetType))
    }
    return (references, reflection.diagnostics)
  }

  private mutating func expand(_ address: UInt, typeName sourceType: String, kind: HeapObjectKind) {
    guard let sourceID = idByAddress[address] else { return }
    let (references, problems) = allReferences(of: address, kind: kind)
    diagnostics += problems.map { .unreadableReferences(typeName: sourceType, address: address, problem: $0) }
    if let note = RuntimeKnowledge.opacityNote(for: sourceType), notedTypes.insert(sourceType).inserted {
      diagnostics.append(.opaqueType(typeName: sourceType, note: note))
    }
    for reference in references {
      if configuration.edgeFilters.contains(where: { $0(sourceType, reference.label, reference.targetTypeName) }) {
        continue
      }
      let (ownership, label) = recorded(reference)
      if reference.isConservative {
        conservative.append((sourceID, reference.targetAddress, label))
        continue
      }
      guard ownership.isRetaining else {
        nonRetaining.append((sourceID, reference.targetAddress, label, ownership))
        continue
      }
      guard let targetID = visit(reference) else { continue }
      builder.addReference(from: sourceID, to: arrivalNode(of: reference, targetID: targetID), label: label, ownership: .strong)
      if reference.retainsTarget { strongReferencesInto[reference.targetAddress, default: 0] += 1 }
    }
  }

  /// The node a strong reference to `targetID` arrives at: the target, except for a closure that
  /// captures exactly one object. The runtime then uses that object as the closure's context, so
  /// no context object exists, and the reference arrives at a closure value: a node without an
  /// address, named by its function, whose "allocation site" is the closure's code and whose one
  /// edge, `capture #0: Type`, goes to the target. So a cycle reads
  /// `Ticker.source -> DispatchSource.event handler -> closure #2 in Ticker.start(weakly: Bool).capture #0: Ticker -> Ticker`
  /// and the report gives the closure's `file:line`, as for a closure with a context.
  private mutating func arrivalNode(of reference: ObjectReference, targetID: Int64) -> Int64 {
    let function = reference.closureFunction
    guard function != 0 && reference.targetKind == .classInstance else { return targetID }
    let id = nextID
    nextID += 1
    let name = Symbolicator.shared.closureName(at: function) ?? "closure at 0x\(String(function, radix: 16))"
    builder.addObject(id: id, type: name, stack: stackID(forFunction: function), kind: .closureContext)
    builder.addReference(from: id, to: targetID, label: "capture #0: \(shortTypeName(reference.targetTypeName))", ownership: .strong)
    return id
  }

  /// How `reference` is recorded: `unowned(unsafe)`/`Unmanaged` links that the runtime knows to
  /// retain count as strong, and so do `unowned` references (labelled `(unowned)`) when the
  /// configuration asks for them. The one place a reference's ownership is decided after reflection.
  private func recorded(_ reference: ObjectReference) -> (ownership: Ownership, label: String) {
    switch reference.ownership {
    case .unmanaged where RuntimeKnowledge.unmanagedReferenceRetains(label: reference.label):
      (.strong, reference.label)
    case .unowned where configuration.includesUnownedReferencesAsSuspicious:
      (.strong, reference.label + " (unowned)")
    default:
      (reference.ownership, reference.label)
    }
  }

  /// References declared through `LeakReflectable` and the configured providers.
  private func declaredReferences(of address: UInt, kind: HeapObjectKind) -> [ObjectReference] {
    guard kind == .classInstance else { return [] }
    let object = Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: address)!).takeUnretainedValue()
    var declared = (object as? LeakReflectable)?.leakReferences ?? []
    for provider in configuration.referenceProviders { declared += provider(object) }
    return declared.compactMap { reference in
      let target = UInt(bitPattern: Unmanaged.passUnretained(reference.object).toOpaque())
      guard let (targetKind, targetType) = reader.describe(address: target, hint: .none) else { return nil }
      return ObjectReference(
        label: reference.label, ownership: reference.ownership, targetAddress: target, targetKind: targetKind,
        targetTypeName: targetType)
    }
  }
}

