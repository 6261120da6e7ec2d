import CLeakRuntime
import HeapGraph

/// The first phase of a capture: from a set of start objects, reads each object's references
/// and records what it saw as a heap snapshot.
///
/// It runs inside a capture child (``CaptureProcess``), on a frozen copy of the heap: it never
/// retains, copies or releases what it reads, so no deinit can run, and objects cannot change
/// or disappear under it. Stacks are recorded as program counters only; the parent symbolizes
/// them (``CapturedHeap/symbolicated()``), where symbol caches outlive the child.
///
/// The phases of a capture are values, each made by the one before, so they can only run in
/// their order:
///
/// ```swift
/// var walk = HeapWalk(configuration: configuration, progress: progress, metadata: metadata, annotations: annotations)
/// for address in starts { walk.addStart(address: address) }
/// let heap = walk.run()                                          // WalkedHeap
///   .rooted(in: regions)                                         // RootedHeap
///   .accounted(retainedByCaller: retained, census: census)       // CapturedHeap
/// ```
///
/// A cycle search, which needs no roots, ends with ``WalkedHeap/resolved(retainedByCaller:)``.
struct HeapWalk {
  /// What a tracker knows about an object that reflection does not.
  struct Annotation {
    /// `nil` for an object no tracker recorded (found in a memory image).
    var generation: Int?
    var size: Int
    var stackID: UInt32
  }

  let configuration: RetainCycleDetector.Configuration
  let progress: CaptureProcess.ProgressRecorder?
  let reader = LiveObjectReader(remembersContexts: true)
  /// Generations, sizes and allocation stacks to record for tracked objects, by address.
  let annotations: [UInt: Annotation]
  /// The snapshot so far; the later phases add their roots to it.
  var builder: HeapSnapshot.Builder
  /// The objects reached, in the order they were reached.
  private(set) var queue: [(address: UInt, typeName: String, kind: HeapObjectKind)] = []
  /// How many objects of `queue` have been expanded.
  private var expanded = 0
  private(set) var idByAddress: [UInt: Int64] = [:]
  /// The id of the next node: an object, or a closure value (``arrivalNode(of:targetID:)``).
  private var nextID: Int64 = 1
  private var startIDs: [Int64] = []
  /// How many strong references the walk recorded into each object, parallel ones included.
  private var strongReferencesInto: [UInt: Int] = [:]
  /// Weak, unowned and unmanaged references, recorded at the end when their target was captured.
  private var nonRetaining: [(from: Int64, to: UInt, label: String, ownership: Ownership)] = []
  /// References read from untyped memory, kept by ``resolveConservativeReferences(explainedElsewhere:)``
  /// where the target's reference count has room for them.
  private var conservative: [(from: Int64, to: UInt, label: String)] = []
  private var diagnostics: [CaptureDiagnostic] = []
  /// The types whose opacity note was added already.
  private var notedTypes: Set<String> = []
  private var reachedMaxObjects = false
  private var closureStackIDs: [UInt: Int64] = [:]
  private var trackerStackIDs: [UInt32: Int64] = [:]
  private var suspensionStackIDs: [[UInt]: Int64] = [:]
  /// The stacks recorded so far, of the three kinds above.
  private var stackCount: Int { closureStackIDs.count + trackerStackIDs.count + suspensionStackIDs.count }
  /// The storage blocks counted in an object's size so far: storage that copies of a value share
  /// counts once, for the first owner the walk expands.
  private var countedStorage: Set<UInt> = []

  init(
    configuration: RetainCycleDetector.Configuration, progress: CaptureProcess.ProgressRecorder?,
    metadata: HeapSnapshot.Metadata, annotations: [UInt: Annotation] = [:]
  ) {
    self.configuration = configuration
    self.progress = progress
    self.annotations = annotations
    builder = HeapSnapshot.Builder(metadata: metadata)
  }

  /// The captured objects, in the order they were reached.
  var addresses: [UInt] { queue.map(\.address) }

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

  /// Reads objects until every strong reference from the starts has been followed.
  consuming func run() -> WalkedHeap {
    WalkedHeap(walking: self)
  }

  /// Reads the objects queued since the last call until every strong reference has been
  /// followed: the walk itself, and its continuation from objects a later phase visits.
  mutating func expandQueued() {
    while expanded < queue.count {
      let object = queue[expanded]
      expanded += 1
      progress?.reading(object.address)
      expand(object.address, typeName: object.typeName, kind: object.kind)
    }
  }

  /// What the walk saw, with stacks as program counters, and the global and thread-local roots
  /// the parent names (`variableRootSlots`).
  consuming func finished(variableRootSlots: [(root: Int64, slot: UInt64)] = []) -> CapturedHeap {
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

  // MARK: - Retains

  /// The strong retains of the captured object at `address` that neither the references the
  /// walk counted into it nor `explainedElsewhere` (the caller's, roots' words) explain.
  func unexplainedRetains(of address: UInt, explainedElsewhere: Int) -> Int {
    cleak_strong_retain_count(address) - strongReferencesInto[address, default: 0] - explainedElsewhere
  }

  /// Keeps the conservative references (words of a task's async frames) that the targets'
  /// reference counts account for: one per retain that neither a precise reference nor
  /// `explainedElsewhere` (by target address) explains, in the order they were read. A stale
  /// word (a slot whose value was released) finds no such retain and is dropped, so it never
  /// makes a cycle. Only objects the walk captured are targets.
  mutating func resolveConservativeReferences(explainedElsewhere: (UInt) -> Int) {
    for edge in conservative {
      guard let target = idByAddress[edge.to], unexplainedRetains(of: edge.to, explainedElsewhere: explainedElsewhere(edge.to)) > 0
      else { continue }
      builder.addReference(from: edge.from, to: target, label: edge.label, ownership: .strong)
      strongReferencesInto[edge.to, default: 0] += 1
    }
    conservative = []
  }

  /// The references from the captured object at `source` to `target` that the walk counted as
  /// retains (``expand(_:typeName:kind:)``'s rule).
  func countedReferences(from source: UInt, described: (typeName: String, kind: HeapObjectKind), to target: UInt) -> Int {
    allReferences(of: source, kind: described.kind).references.count { reference in
      !reference.isConservative && reference.targetAddress == target && reference.retainsTarget
        && recorded(reference).ownership.isRetaining && !isFiltered(reference, from: described.typeName)
    }
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
    var stack = allocationSite(of: address, kind: kind, function: function)
    var generation: Int?
    var size: Int?
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
  mutating func visit(_ reference: ObjectReference) -> Int64? {
    visit(
      address: reference.targetAddress, typeName: reference.targetTypeName, kind: reference.targetKind,
      function: reference.closureFunction)
  }

  /// The "allocation site" of an untracked closure context (the closure's code) or task (the
  /// closure it runs, where `Task {` is written).
  private mutating func allocationSite(of address: UInt, kind: HeapObjectKind, function: UInt) -> Int64? {
    if kind == .closureContext, function != 0 {
      return stackID(forFunction: function)
    } else if kind == .task, let closure = TaskReferences(reflector: reader.reflector).closureFunction(ofTask: address), closure != 0 {
      return stackID(forFunction: closure)
    }
    return nil
  }

  /// The snapshot stack of an allocation stack recorded by the tracker, as return addresses.
  private mutating func stackID(forTrackerStack trackerID: UInt32) -> Int64 {
    if let id = trackerStackIDs[trackerID] { return id }
    let id = Int64(stackCount + 1)
    trackerStackIDs[trackerID] = id
    builder.addStack(id: id, frames: AllocationTracker.programCounters(ofStack: trackerID).map { StackFrame(pc: UInt64($0)) })
    return id
  }

  /// A closure context's "allocation site": the closure's own code address.
  private mutating func stackID(forFunction function: UInt) -> Int64 {
    if let id = closureStackIDs[function] { return id }
    let id = Int64(stackCount + 1)
    closureStackIDs[function] = id
    builder.addStack(id: id, frames: [StackFrame(pc: UInt64(function))])
    return id
  }

  /// How many frames of a waiting task's async backtrace a capture keeps, from where it waits.
  static let suspensionFrameLimit = 8

  /// Where the task at `address` (node `taskID`) waits, as a node of its own (``SuspensionPoint``)
  /// that the task links to; `nil` for a running task, or when its frames cannot be read. The
  /// node is named after the first function of the backtrace that is neither in the Swift
  /// runtime's libraries nor the standard library's code emitted into the program (not a
  /// stream's `next()`, the runtime's adapter that awaits a task's value, or `Task.sleep`), and
  /// its stack starts there. Its lines are looked up later, in the parent: here, with
  /// thousands of tasks, libdw's line tables would cost seconds.
  private mutating func suspensionNode(ofTask address: UInt, taskID: Int64) -> Int64? {
    guard ConcurrencyLayoutCheck.mismatch == nil else { return nil }
    let frames = TaskReferences(reflector: reader.reflector).suspensionFrames(ofTask: address)
    guard !frames.isEmpty else { return nil }
    let first =
      frames.firstIndex { pc in
        !cleak_is_in_swift_runtime(pc - 1)
          && !(Symbolicator.shared.name(at: pc - 1).map(SuspensionPoint.isStandardLibraryFunction) ?? false)
      } ?? 0
    // The function it waits in and a few callers: each new address costs the parent a line lookup.
    let shown = Array(frames[first...].prefix(Self.suspensionFrameLimit))
    let function = Symbolicator.shared.closureName(at: shown[0] - 1) ?? "0x\(String(shown[0] - 1, radix: 16))"
    let stack: Int64
    if let known = suspensionStackIDs[shown] {
      stack = known
    } else {
      stack = Int64(stackCount + 1)
      suspensionStackIDs[shown] = stack
      builder.addStack(id: stack, frames: shown.map { StackFrame(pc: UInt64($0)) })
    }
    let id = nextID
    nextID += 1
    builder.addObject(id: id, type: SuspensionPoint.typeName(function: function), stack: stack, kind: .closureContext)
    builder.addReference(from: taskID, to: id, label: SuspensionPoint.taskEdgeLabel, ownership: .strong)
    return id
  }

  /// Everything `address` references: reflected, declared and associated; and the storage its
  /// values own.
  func allReferences(of address: UInt, kind: HeapObjectKind) -> (
    references: [ObjectReference], diagnostics: [String], ownedStorage: [OwnedStorage]
  ) {
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
    return (references, reflection.diagnostics, reflection.ownedStorage)
  }

  /// Reads the references of a queued object: strong ones are followed (their targets visited),
  /// conservative and non-retaining ones are kept for later.
  private mutating func expand(_ address: UInt, typeName sourceType: String, kind: HeapObjectKind) {
    guard let sourceID = idByAddress[address] else { return }
    let (references, problems, ownedStorage) = allReferences(of: address, kind: kind)
    count(ownedStorage, inSizeOf: sourceID, at: address)
    diagnostics += problems.map { .unreadableReferences(typeName: sourceType, address: address, problem: $0) }
    if let note = RuntimeKnowledge.opacityNote(for: sourceType), notedTypes.insert(sourceType).inserted {
      diagnostics.append(.opaqueType(typeName: sourceType, note: note))
    }
    var frameWords: [(to: UInt, label: String)] = []
    for reference in references where !isFiltered(reference, from: sourceType) {
      let (ownership, label) = recorded(reference)
      if reference.isConservative {
        if kind == .task && label == SuspensionPoint.frameEdgeLabel {
          frameWords.append((reference.targetAddress, label))
        } else {
          conservative.append((sourceID, reference.targetAddress, label))
        }
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
    // A waiting task's frames are held where it waits: a node made after the task's other
    // targets, so that paths go through what the task's closure captures before its frames.
    if kind == .task {
      let holder = suspensionNode(ofTask: address, taskID: sourceID) ?? sourceID
      conservative += frameWords.map { (holder, $0.to, $0.label) }
    }
  }

  /// Adds to the size of the object `id` at `address` the bytes of the storage it owns that no
  /// object expanded before it owns (``countedStorage``). An object whose own size is unknown
  /// (untracked) gets nothing, and leaves its storage to a later owner.
  private mutating func count(_ ownedStorage: [OwnedStorage], inSizeOf id: Int64, at address: UInt) {
    guard !ownedStorage.isEmpty, let size = annotations[address]?.size, size > 0 else { return }
    var bytes = 0
    for block in ownedStorage where countedStorage.insert(block.address).inserted {
      bytes += block.bytes
    }
    if bytes > 0 { builder.addBytes(bytes, toSizeOf: id) }
  }

  /// Whether a configured edge filter drops `reference` of an object of type `sourceType`.
  private func isFiltered(_ reference: ObjectReference, from sourceType: String) -> Bool {
    configuration.edgeFilters.contains { $0(sourceType, reference.label, reference.targetTypeName) }
  }

  /// The node a strong reference to `targetID` arrives at: the target, except for a closure that
  /// captures exactly one object. The runtime then uses that object as the closure's context, so
  /// no context object exists, and the reference arrives at a closure value: a node without an
  /// address, named by its function, whose "allocation site" is the closure's code and whose one
  /// edge, `capture #0: Type`, goes to the target. So a cycle reads
  /// `Ticker.source -> DispatchSource.event handler -> closure #2 in Ticker.start(weakly: Bool).capture #0: Ticker -> Ticker`
  /// and the report gives the closure's `file:line`, as for a closure with a context.
  mutating func arrivalNode(of reference: ObjectReference, targetID: Int64) -> Int64 {
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
    guard kind == .classInstance, let metadata = MemoryReader.readWord(at: address) else { return [] }
    let isReflectable = reader.reflector.isLeakReflectable(metadata: metadata)
    guard isReflectable || !configuration.referenceProviders.isEmpty else { return [] }
    let object = Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: address)!).takeUnretainedValue()
    var declared = isReflectable ? (object as? LeakReflectable)?.leakReferences ?? [] : []
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
