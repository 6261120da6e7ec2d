import CLeakRuntime
import HeapGraph

extension RootedHeap {
  /// The last phase of a whole-heap capture: marks as roots the objects something outside the
  /// walk holds, and ends the capture.
  ///
  /// An object whose strong reference count exceeds the strong references the walk found into
  /// it, once those the caller holds for the capture (`retainedByCaller`, by address) and those
  /// of roots are subtracted, is held by a stack, a global or an object the walk did not see.
  /// This is CPython's cycle collector test (`gc_refs = refcount − internal references`;
  /// Python's `gcmodule.c`, `subtract_refs`): objects not reachable from such roots can only be
  /// reached from each other, so they leaked. The conservative references are resolved first
  /// (``HeapWalk/resolveConservativeReferences(explainedElsewhere:)``), so that each one kept
  /// counts as one of its target's references.
  ///
  /// The counts are those of the instant of the fork, as are the references, so they agree; a
  /// reference the reflection could not read makes its target a root, so errors go towards
  /// "held", never towards "leaked".
  ///
  /// With a `census` of the whole memory, a retain that no word of memory accounts for is not a
  /// root (``unbalancedRetains(among:census:)``): the object counts as leaked, with a diagnostic.
  /// Nor is the retain a task suspended on a continuation keeps for whoever resumes it, when no
  /// reference to the task was found (``ResumerRetain``): nothing can resume it.
  consuming func accounted(retainedByCaller: [UInt: Int], census: ReferenceCensus? = nil) -> CapturedHeap {
    let referencesFromRoots = referencesFromRoots
    let explained = { (address: UInt) in retainedByCaller[address, default: 0] + referencesFromRoots[address, default: 0] }
    walk.resolveConservativeReferences(explainedElsewhere: explained)
    var held: [(address: UInt, id: Int64, count: Int)] = []
    for object in walk.queue {
      guard let id = walk.idByAddress[object.address] else { continue }
      let unexplained = walk.unexplainedRetains(of: object.address, explainedElsewhere: explained(object.address))
      let external = unexplained - ResumerRetain.unheld(ofObjectAt: object.address, kind: object.kind, unexplained: unexplained)
      if external > 0 { held.append((object.address, id, external)) }
    }
    var unbalanced: [UInt: String] = [:]
    if var census {
      // Only objects the tracker saw allocated: static and immortal objects have counts of their own.
      unbalanced = unbalancedRetains(among: held.map(\.address).filter { walk.annotations[$0] != nil }, census: &census)
    }
    var diagnostics: [CaptureDiagnostic] = []
    for object in held {
      if let typeName = unbalanced[object.address] {
        diagnostics.append(UnbalancedRetain(typeName: typeName, address: UInt64(object.address), count: object.count).diagnostic)
      } else {
        let references = object.count == 1 ? "1 strong reference" : "\(object.count) strong references"
        walk.builder.addRoot(object: object.id, kind: .external, label: references + " from outside the snapshot")
      }
    }
    var heap = walk.finished(variableRootSlots: variableRootSlots)
    heap.snapshot.metadata.diagnosticRecords += diagnostics
    return heap
  }

  /// The objects among `candidates` (held from outside the walk by their reference counts) that
  /// no word of memory refers to, but for words inside captured objects whose references the walk
  /// already counted, with their type names: their extra retains are held by nothing. A word
  /// anywhere else (a C structure, a collection's buffer, a stack, an `Unmanaged` field, an
  /// interior pointer) keeps its object held, as do a failed census and more words than it lists.
  private func unbalancedRetains(among candidates: [UInt], census: inout ReferenceCensus) -> [UInt: String] {
    let sorted = candidates.sorted()
    guard let results = census.wordsReferring(to: censusObjects(sorted)) else { return [:] }
    let suspects = suspects(sorted, results: results)
    guard !suspects.isEmpty else { return [:] }
    var described: [UInt: (typeName: String, kind: HeapObjectKind)] = [:]
    let wanted = Set(suspects.flatMap { [$0.target] + $0.wordsBySource.keys })
    for object in walk.queue where wanted.contains(object.address) { described[object.address] = (object.typeName, object.kind) }
    var unbalanced: [UInt: String] = [:]
    for suspect in suspects {
      let counted = suspect.wordsBySource.allSatisfy { source, words in
        described[source].map { walk.countedReferences(from: source, described: $0, to: suspect.target) >= words } ?? false
      }
      if counted { unbalanced[suspect.target] = described[suspect.target]?.typeName ?? "an object" }
    }
    return unbalanced
  }

  /// The census's question for the objects at `sorted` (ascending): each one's memory (its
  /// tracked size, at least 16 bytes, up to the next object) and its side table.
  private func censusObjects(_ sorted: [UInt]) -> [cleak_census_object] {
    var objects: [cleak_census_object] = []
    for (index, address) in sorted.enumerated() {
      var end = address + UInt(max(walk.annotations[address]?.size ?? 0, 16))
      if index + 1 < sorted.count { end = min(end, sorted[index + 1]) }
      objects.append(cleak_census_object(start: address, end: end, sideTable: cleak_side_table_of(address)))
    }
    return objects
  }

  /// Each target whose every referring word the census listed lies inside a captured object,
  /// with how many of those words each such object holds.
  private func suspects(_ sorted: [UInt], results: [cleak_census_result]) -> [(target: UInt, wordsBySource: [UInt: Int])] {
    var suspects: [(target: UInt, wordsBySource: [UInt: Int])] = []
    lazy var extents = CapturedExtents(addresses: walk.addresses) { walk.annotations[$0]?.size }
    for (target, result) in zip(sorted, results) where result.count <= UInt64(CLEAK_CENSUS_SLOTS) {
      let slots = withUnsafeBytes(of: result.slots) { Array($0.bindMemory(to: UInt.self).prefix(Int(result.count))) }
      let sources = slots.map { extents.object(containing: $0) }
      guard !sources.contains(nil) else { continue }
      suspects.append((target, sources.reduce(into: [:]) { $0[$1!, default: 0] += 1 }))
    }
    return suspects
  }
}
