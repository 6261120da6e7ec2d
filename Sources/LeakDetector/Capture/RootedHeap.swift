import CLeakRuntime
import HeapGraph

/// The third phase of a capture: the walked heap with its roots, made by
/// ``WalkedHeap/rooted(in:)``: what libdispatch and the main run loop hold until it runs
/// (``addPendingWorkRoots()``), and the objects that words of global data, stacks and
/// thread-local storage refer to (``addRootsFound(in:)``).
///
/// It holds, beside the walk, what the last phase (``accounted(retainedByCaller:census:)``)
/// counts as explained retains: the references from roots, and where the parent names the
/// global and thread-local ones.
struct RootedHeap {
  /// The walk, which the pending-work roots extend.
  var walk: HeapWalk
  /// How many root references hold each object: words of global data and thread-local storage
  /// (variables, which hold what they refer to) and the holders of pending work. Stack words
  /// are not counted: a stale slot is common there.
  var referencesFromRoots: [UInt: Int] = [:]
  /// The roots found in global data and thread-local storage, by index in the snapshot's roots,
  /// with the address of the word: the parent names them by the variable there.
  var variableRootSlots: [(root: Int64, slot: UInt64)] = []

  /// Roots `walk`: first what pending work holds, which may extend the walk, then what the
  /// words of `regions` refer to among all the captured objects.
  init(rooting walk: consuming HeapWalk, in regions: [RootRegion]) {
    self.walk = walk
    addPendingWorkRoots()
    addRootsFound(in: regions)
  }

  /// Marks as roots the captured objects that a word of `regions` refers to (conservatively:
  /// any word that is an object's address once Swift's spare pointer bits are cleared; for a
  /// region with copied words, those words, exactly), one root
  /// per object and region for stacks and thread-local storage (the thread-local one named in
  /// the parent by the variable at its first word, `App.current (main thread)`), one per word for
  /// global data (named in the parent by the variable that holds it). The elements of a
  /// collection a global word refers to are global roots too, labelled with the element's path
  /// (`[0]`, `["key"]`) after the word's address until the parent names the variable.
  private mutating func addRootsFound(in regions: [RootRegion]) {
    cleak_refresh_readable_regions()  // the scans test words against the mappings as of now
    let sorted = walk.addresses.sorted()
    for region in regions {
      var rootedHere = Set<UInt>()
      let hits =
        region.copiedWords.map { Self.hits(inCopiedWords: $0, of: region) }
        ?? Self.hits { cleak_scan_for_objects(region.start, region.end, sorted, sorted.count, $0, $1) }
      for hit in hits {
        guard let id = walk.idByAddress[hit.object] else { continue }
        if region.kind == .global {
          addGlobalRoot(id: id, object: hit.object, slot: hit.slot, path: "")
        } else if rootedHere.insert(hit.object).inserted {
          // A thread-local word holds its object; one of static storage is named in the parent
          // by its variable, if one covers it.
          if region.kind == .threadLocal {
            if region.copiedWords == nil { variableRootSlots.append((Int64(walk.builder.snapshot.roots.count), UInt64(hit.slot))) }
            referencesFromRoots[hit.object, default: 0] += 1
          }
          walk.builder.addRoot(object: id, kind: region.kind, label: region.label)
        }
      }
      if region.kind == .global { addElementRoots(ofCollectionsIn: region) }
    }
  }

  /// The global roots of ``addRootsFound(in:)`` held through collections in global data.
  private mutating func addElementRoots(ofCollectionsIn region: RootRegion) {
    let descriptors = StandardCollection.storageDescriptors
    let hits = Self.hits { cleak_scan_for_collection_storage(region.start, region.end, descriptors, descriptors.count, $0, $1) }
    for hit in hits {
      for element in walk.reader.reflector.referencesOfCollection(heldAt: hit.slot) where element.ownership == .strong {
        guard let id = walk.idByAddress[element.target] else { continue }
        addGlobalRoot(id: id, object: element.target, slot: hit.slot, path: element.label)
      }
    }
  }

  /// A root for the global word at `slot` that holds `object` (through `path`, the element's
  /// path when a collection holds it), counted as one of the object's strong references. Its
  /// label is the word's address then the path, until the parent names the variable.
  private mutating func addGlobalRoot(id: Int64, object: UInt, slot: UInt, path: String) {
    referencesFromRoots[object, default: 0] += 1
    variableRootSlots.append((Int64(walk.builder.snapshot.roots.count), UInt64(slot)))
    walk.builder.addRoot(object: id, kind: .global, label: "0x" + String(slot, radix: 16) + path)
  }

  /// Each word of `copiedWords` (copied from `region`, from its start on) as a hit of a scan at
  /// the word's address; the caller keeps those that are a captured object's address.
  private static func hits(inCopiedWords copiedWords: [UInt], of region: RootRegion) -> ArraySlice<cleak_reference_hit> {
    let stride = UInt(MemoryLayout<UInt>.size)
    return copiedWords.enumerated().map { cleak_reference_hit(slot: region.start + UInt($0.offset) * stride, object: $0.element) }[...]
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
}
