/// The data of the heap explorer (``HeapAnalysis/renderHTML(title:graphviz:compress:allCycles:settingNames:)``):
/// every object of an analysed heap as columns, its strong and non-retaining references as
/// compressed rows, and the findings, encoded compactly for the page's script to decode.
///
/// The encoding is a 4-byte little-endian length, a JSON header of that length (the counts; the
/// string tables: types as the report writes them and in full, for searching, labels, frames and
/// stacks; the roots, leak groups, survivors, what holds the memory and the types' rows), then
/// columns of unsigned LEB128 varints in the order the header's `columns` names them, each as
/// long as the header's counts say:
///
/// ```text
/// id        object id, as the difference from the previous node's (zigzag)
/// type      type index in `types`
/// size      shallow size + 1 (0: unknown)
/// retained  retained size: what releasing the object frees
/// dominator immediate dominator + 2 (0: no entry reaches it, 1: held by the roots or entries)
/// parent    previous node on the shortest path from a root + 2 (0: unreached, 1: a root)
/// generation tracker generation + 1 (0: unknown)
/// stack     index in `stacks` + 1 (0: none)
/// address   address, as the difference from the previous node's (zigzag)
/// strong    strong references per node; then per reference its target, as the difference from
///           the previous target of the row or, for the first, from the node (zigzag), and its
///           label index + 1
/// weak      per non-retaining reference: its source as the difference from the previous one,
///           its target as the difference from its source (zigzag), its label index + 1, and its
///           ownership (1 weak, 2 unowned, 3 unmanaged)
/// ```
///
/// Nothing here is computed that the analysis already has: retained sizes, dominators and
/// shortest paths are the analysis's own, and the types' rows and what holds the memory are
/// ``HeapMemory``'s.
struct HeapExplorer {
  /// The analysis shown.
  let analysis: HeapAnalysis
  /// How names are written, as in the text report.
  let names: NameStyle
  /// What holds the memory: the summary's retainers and suspects, and the types' rows.
  let memory: HeapMemory

  /// The most entry objects of a leak group listed in the page; the count says how many there are.
  static let listedInstanceLimit = 10_000

  /// The names of the columns, in the order they are encoded.
  static let columns = ["id", "type", "size", "retained", "dominator", "parent", "generation", "stack", "address", "strong", "weak"]

  /// The header and the columns, encoded as the type's discussion describes.
  ///
  /// - Complexity: O(*n* + *e*) for *n* objects and *e* references.
  func encoded() -> [UInt8] {
    let header = headerJSON()
    var bytes: [UInt8] = []
    let graph = analysis.graph
    bytes.reserveCapacity(header.count + 4 + graph.objectCount * 16 + graph.strongTargets.count * 3)
    withUnsafeBytes(of: UInt32(header.count).littleEndian) { bytes.append(contentsOf: $0) }
    bytes.append(contentsOf: header)
    appendColumns(to: &bytes)
    return bytes
  }

  // MARK: - Columns

  private func appendColumns(to bytes: inout [UInt8]) {
    let graph = analysis.graph
    let dominators = analysis.leaks.dominators
    let parents = analysis.shortestPaths.parent
    var previous: Int64 = 0
    for node in graph.nodes {
      let id = graph.objectID(of: node)
      Self.appendSigned(id &- previous, to: &bytes)
      previous = id
    }
    for node in graph.nodes { Self.append(UInt64(graph.typeRanks[node]), to: &bytes) }
    for node in graph.nodes { Self.append(UInt64(max(graph.sizes[node] + 1, 0)), to: &bytes) }
    for node in graph.nodes { Self.append(UInt64(max(dominators.retainedSize[node], 0)), to: &bytes) }
    for node in graph.nodes { Self.append(UInt64(dominators.immediateDominator[node] + 2), to: &bytes) }
    for node in graph.nodes { Self.append(UInt64(parents[node] + 2), to: &bytes) }
    for node in graph.nodes { Self.append(graph.generation(of: node).map { UInt64($0) + 1 } ?? 0, to: &bytes) }
    for node in graph.nodes { Self.append(UInt64(graph.stackIndices[node] + 1), to: &bytes) }
    var previousAddress: Int64 = 0
    for node in graph.nodes {
      let address = Int64(bitPattern: graph.addresses[node])
      Self.appendSigned(address &- previousAddress, to: &bytes)
      previousAddress = address
    }
    for node in graph.nodes { Self.append(UInt64(graph.strongOffsets[node + 1] - graph.strongOffsets[node]), to: &bytes) }
    for node in graph.nodes {
      var previousTarget = Int64(node)
      for edge in Int(graph.strongOffsets[node])..<Int(graph.strongOffsets[node + 1]) {
        let target = Int64(graph.strongTargets[edge])
        Self.appendSigned(target - previousTarget, to: &bytes)
        previousTarget = target
        Self.append(UInt64(graph.strongLabels[edge] + 1), to: &bytes)
      }
    }
    let weak = graph.nonRetaining
    var previousSource: Int32 = 0
    for index in 0..<weak.count {
      Self.append(UInt64(weak.sources[index] - previousSource), to: &bytes)
      previousSource = weak.sources[index]
      Self.appendSigned(Int64(weak.targets[index]) - Int64(weak.sources[index]), to: &bytes)
      Self.append(UInt64(weak.labels[index] + 1), to: &bytes)
      Self.append(Self.ownershipCode(weak.ownerships[index]), to: &bytes)
    }
  }

  private static func ownershipCode(_ ownership: Ownership) -> UInt64 {
    switch ownership {
    case .strong: 0
    case .weak: 1
    case .unowned: 2
    case .unmanaged: 3
    }
  }

  /// `value` as an unsigned LEB128 varint: seven bits a byte, low bits first.
  @inline(__always)
  private static func append(_ value: UInt64, to bytes: inout [UInt8]) {
    var value = value
    while value >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
      value >>= 7
    }
    bytes.append(UInt8(value))
  }

  /// `value` zigzag-encoded (0, -1, 1, -2… as 0, 1, 2, 3…), as a varint.
  @inline(__always)
  private static func appendSigned(_ value: Int64, to bytes: inout [UInt8]) {
    append(UInt64(bitPattern: (value << 1) ^ (value >> 63)), to: &bytes)
  }

  // MARK: - Header

  private func headerJSON() -> [UInt8] {
    let graph = analysis.graph
    let leaks = analysis.leaks
    var json = JSONWriter(reservingCapacity: 1 << 16)
    json.beginObject()
    json.field("objectCount", graph.objectCount)
    json.field("strongCount", graph.strongTargets.count)
    json.field("weakCount", graph.nonRetaining.count)
    json.field("referenceCount", graph.referenceCount)
    json.field("hasRoots", leaks.hasRoots)
    json.field("leakedObjectCount", leaks.leakedObjectCount)
    json.field("cycleCount", analysis.cycles.foundCycleCount)
    json.key("columns")
    strings(Self.columns, to: &json)
    json.key("types")
    strings(graph.typeNames.map(names.type), to: &json)
    json.key("qualifiedTypes")
    strings(graph.typeNames, to: &json)
    json.key("labels")
    strings(graph.labels, to: &json)
    appendStacks(to: &json)
    json.key("roots")
    json.beginArray()
    for root in graph.roots {
      json.beginArray()
      json.integer(root.node)
      json.string(root.kind.rawValue + (root.label.map { " " + $0 } ?? ""))
      json.endArray()
    }
    json.endArray()
    appendMemory(to: &json)
    json.key("leakGroups")
    json.beginArray()
    for group in leaks.leakGroups {
      json.beginObject()
      json.field("title", group.entryCycle.map(names.cycle) ?? names.type(group.summary))
      json.field("instances", group.instanceCount)
      json.field("objects", group.objectCount)
      json.field("retained", group.retainedSize)
      json.field("fingerprint", group.fingerprint.description)
      json.key("entries")
      json.beginArray()
      for id in group.entryObjectIDs.prefix(Self.listedInstanceLimit) { json.integer(graph.node(forObjectID: id) ?? -1) }
      json.endArray()
      json.endObject()
    }
    json.endArray()
    json.key("survivors")
    json.beginArray()
    for survivor in leaks.survivors {
      json.beginObject()
      json.field("root", survivor.root)
      json.field("suspect", survivor.suspect)
      json.field("retained", survivor.retainedSize)
      json.field("node", survivor.path.last.flatMap { graph.node(forObjectID: $0.objectID) } ?? -1)
      json.endObject()
    }
    json.endArray()
    json.endObject()
    return json.finishDocument()
  }

  /// The most retainers the summary lists.
  static let listedRetainerLimit = 20

  /// What holds the memory (``HeapMemory``): its totals, suspects and top retainers as text,
  /// and its type rows by type index (`[type, objects, shallow bytes, retained bytes]`).
  private func appendMemory(to json: inout JSONWriter) {
    let graph = analysis.graph
    json.key("memory")
    json.beginObject()
    json.field("objects", memory.objectCount)
    json.field("bytes", memory.byteCount)
    json.field("leakedBytes", memory.leakedBytes)
    json.key("suspects")
    json.beginArray()
    for suspect in memory.suspects {
      json.beginObject()
      json.field("path", memory.path(suspect.path, names: names))
      json.field("objects", suspect.objectCount)
      json.field("retained", suspect.retainedBytes)
      json.field("share", memory.percent(suspect.retainedBytes))
      if let accumulation = suspect.accumulation {
        json.field("accumulation", memory.relativePath(accumulation.path, below: suspect.path, names: names))
        json.field("accumulationObjects", accumulation.objectCount)
        json.field("accumulationBytes", accumulation.retainedBytes)
      }
      json.endObject()
    }
    json.endArray()
    json.key("retainers")
    json.beginArray()
    for retainer in memory.retainers.prefix(Self.listedRetainerLimit) {
      json.beginObject()
      json.field("path", memory.path(retainer.path, names: names))
      json.field("objects", retainer.objectCount)
      json.field("retained", retainer.retainedBytes)
      json.field("share", memory.percent(retainer.retainedBytes))
      json.key("sites")
      strings(retainer.sites.map { "\(names.frame($0.site)): \(count($0.count, "object"))" }, to: &json)
      json.endObject()
    }
    json.endArray()
    json.field("retainerCount", memory.retainers.count)
    json.endObject()
    json.key("typeRows")
    json.beginArray()
    for row in memory.types {
      guard let rank = Self.index(of: row.typeName, in: graph.typeNames) else { continue }
      json.beginArray()
      json.integer(rank)
      json.integer(row.objectCount)
      json.integer(row.shallowBytes)
      json.integer(row.retainedBytes)
      json.endArray()
    }
    json.endArray()
  }

  /// The index of `name` in the sorted `names`.
  private static func index(of name: String, in names: [String]) -> Int? {
    var low = 0
    var high = names.count
    while low < high {
      let middle = (low + high) / 2
      if names[middle] < name { low = middle + 1 } else { high = middle }
    }
    return low < names.count && names[low] == name ? low : nil
  }

  /// The allocation stacks: each frame written once in `frames` as the text report writes it,
  /// and each stack as the indices of its frames.
  private func appendStacks(to json: inout JSONWriter) {
    var frameIndex: [StackFrame: Int] = [:]
    var frames: [String] = []
    var stacks: [[Int]] = []
    for stack in analysis.graph.stacks {
      stacks.append(
        stack.frames.map { frame in
          if let index = frameIndex[frame] { return index }
          frameIndex[frame] = frames.count
          frames.append(names.frame(frame) + (frame.inlined ? " inlined" : ""))
          return frames.count - 1
        })
    }
    json.key("frames")
    strings(frames, to: &json)
    json.key("stacks")
    json.beginArray()
    for stack in stacks {
      json.beginArray()
      for index in stack { json.integer(index) }
      json.endArray()
    }
    json.endArray()
  }

  private func strings(_ values: [String], to json: inout JSONWriter) {
    json.beginArray()
    for value in values { json.string(value) }
    json.endArray()
  }
}
