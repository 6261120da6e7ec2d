/// What grew over a series of snapshots of one program, taken after each round of the same work
/// (a request, a test iteration): the retaining paths, leak groups and types whose count grew
/// in every step, as LeakCanary's heap-growth detection and BLeak decide, ranked by what they
/// add per step.
///
/// A bounded cache that fills up (1, 2, 3, 3, 3) did not grow in every step and is not reported;
/// neither is work in flight that comes and goes (3, 1, 4, 2). Paths are read with subscripts
/// collapsed at every depth, roots included, so a collection's elements, or a task per round kept
/// in `continuations[0]`, `continuations[1]`, …, are one path. A path is reported at its top: the
/// growing paths below a growing path (a response's body under the cached response) are part of
/// it, and their bytes are counted in its bytes. Leaked objects are reported by leak group, so
/// each growing thing is named once.
///
/// ```text
/// Growth over 4 snapshots: 2 things grew in every step (3 steps)
///   1) global Cache.shared: Cache.entries[*] -> Response
///      objects 1 -> 2 -> 3 -> 4 (+1 per step), bytes +304 per step
///      growing: Cache.entries
///      added at Server.handle(path:) (Server.swift:12): 3 objects
/// ```
public struct HeapGrowth: Sendable {
  /// One thing that grew: a retaining path, or a leak group.
  public struct Finding: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
      /// Objects a root still reaches along one path.
      case path
      /// Instances of a leak group (unreachable objects).
      case leak
    }

    public var kind: Kind
    /// The path's description, or the leak group's summary: address-free, as written in full.
    public var summary: String
    /// The path's root (`global Cache.shared`); `nil` for a leak.
    public var origin: String?
    /// The path's objects with their references, or the leak group's entry cycle.
    public var links: [HeapFinding.Link]
    /// The object and reference that grows (`Cache.entries`), or the object whose own size grows
    /// (``growsInSize``); `nil` for a leak, and when a root holds the objects itself (a global
    /// array's elements, a thread's stack).
    public var growing: HeapFinding.Link?
    /// Whether the path's objects stayed as many but grew in size: the values in collections they
    /// own (a dictionary of strings), which are no objects of their own.
    public var growsInSize = false
    /// Objects (a path) or instances (a leak) in each snapshot.
    public var counts: [Int]
    /// The bytes they hold in each snapshot.
    public var bytes: [Int]
    /// The lines that allocated the objects added over the steps, most objects first.
    public var addedAt: [HeapTally.SiteCount]
    /// The identity of the finding across runs: its kind and summary.
    public var fingerprint: Fingerprint

    /// Objects added per step, on average.
    public var countPerStep: Double { Double(counts.last! - counts.first!) / Double(max(1, counts.count - 1)) }
    /// Bytes added per step, on average.
    public var bytesPerStep: Double { Double(bytes.last! - bytes.first!) / Double(max(1, bytes.count - 1)) }
  }

  /// A type whose objects grew in enough steps.
  public struct TypeGrowth: Sendable, Hashable {
    public var typeName: String
    public var counts: [Int]
    public var bytes: [Int]
  }

  /// How many snapshots were compared.
  public let snapshotCount: Int
  /// How many of the steps a count must grow in to be reported (a step: from one snapshot to
  /// the next); by default every step.
  public let minimumGrowingSteps: Int
  /// What grew, the most objects added per step first.
  public let findings: [Finding]
  /// Types that grew, the most objects added per step first (at most 20).
  public let growingTypes: [TypeGrowth]
  /// Objects and bytes in each snapshot.
  public let totals: [(objects: Int, bytes: Int)]
  /// Each snapshot's metadata (its process, its memory), in order.
  public let metadata: [HeapSnapshot.Metadata]

  /// Compares `tallies` (at least two, in the order they were taken). A count is reported when
  /// it grew in at least `minimumGrowingSteps` of the steps (default: all of them) and is larger
  /// in the last snapshot than in the first.
  public init(tallies: [HeapTally], minimumGrowingSteps: Int? = nil) {
    precondition(tallies.count >= 2, "HeapGrowth needs at least two snapshots")
    let steps = tallies.count - 1
    let required = min(max(1, minimumGrowingSteps ?? steps), steps)
    func grows(_ counts: [Int]) -> Bool {
      counts.last! > counts.first! && zip(counts, counts.dropFirst()).count { $1 > $0 } >= required
    }
    func added(_ sites: [[String: HeapTally.SiteCount]]) -> [HeapTally.SiteCount] {
      var total: [String: HeapTally.SiteCount] = [:]
      for (before, after) in zip(sites, sites.dropFirst()) {
        for (key, site) in after {
          let more = site.count - (before[key]?.count ?? 0)
          if more > 0 { total[key, default: HeapTally.SiteCount(site: site.site, count: 0)].count += more }
        }
      }
      return total.sorted { ($1.value.count, $0.key) < ($0.value.count, $1.key) }.prefix(3).map(\.value)
    }

    // Paths: those whose count grew, and those whose objects' own size grew (a collection of
    // values they own); then only those no growing path above them holds.
    let last = tallies[tallies.count - 1]
    var growingPaths: [UInt64: (counts: [Int], inSize: Bool)] = [:]
    for key in last.paths.keys {
      let counts = tallies.map { $0.paths[key]?.entry.count ?? 0 }
      if grows(counts) {
        growingPaths[key] = (counts, false)
      } else if grows(tallies.map { $0.paths[key]?.ownBytes ?? 0 }) {
        growingPaths[key] = (counts, true)
      }
    }
    // A path whose count grew is reported at the top of the paths whose count grew above it. A
    // path that only grew in size is reported when no growing path holds it and no path below
    // it grew in count (those explain it: a cache's dictionary grows with its entries).
    var topOf: [UInt64: UInt64] = [:]
    var explainedBelow: Set<UInt64> = []
    for (key, growth) in growingPaths {
      var top = key
      var parent = last.paths[key]?.parentKey
      while let above = parent {
        if let held = growingPaths[above], !held.inSize || growth.inSize { top = above }
        if !growth.inSize { explainedBelow.insert(above) }
        parent = last.paths[above]?.parentKey
      }
      if top != key { topOf[key] = top }
    }
    for key in explainedBelow where growingPaths[key]?.inSize == true { growingPaths[key] = nil }
    func addedAt(_ key: UInt64) -> [HeapTally.SiteCount] { added(tallies.map { $0.paths[key]?.entry.sites ?? [:] }) }
    var found: [Finding] = []
    for (key, growth) in growingPaths where topOf[key] == nil {
      guard let entry = last.paths[key] else { continue }
      let links = entry.path.links
      // Where the top's objects have no source line (a thunk's context), the lines that added
      // the growing objects it holds.
      var sites = addedAt(key)
      if !sites.contains(where: { $0.site.sourceLocation != nil }) {
        let below = topOf.filter { $0.value == key }.keys.map(addedAt).filter { $0.contains { $0.site.sourceLocation != nil } }
        sites =
          below.max {
            ($0.first?.count ?? 0, $1.first.map { HeapTally.siteKey($0.site) } ?? "") < (
              $1.first?.count ?? 0, $0.first.map { HeapTally.siteKey($0.site) } ?? ""
            )
          } ?? sites
      }
      found.append(
        Finding(
          kind: .path, summary: entry.path.description, origin: entry.path.origin, links: links,
          growing: growth.inSize
            ? links.last.map { HeapFinding.Link(typeName: $0.typeName, reference: nil) } : links.count >= 2 ? links[links.count - 2] : nil,
          growsInSize: growth.inSize, counts: growth.counts, bytes: tallies.map { $0.paths[key]?.entry.bytes ?? 0 }, addedAt: sites,
          fingerprint: Fingerprint(parts: ["growth", "path", DataLabel.redacted(entry.path.description)])))
    }
    for (fingerprint, entry) in last.leaks {
      let counts = tallies.map { $0.leaks[fingerprint]?.entry.count ?? 0 }
      guard grows(counts) else { continue }
      found.append(
        Finding(
          kind: .leak, summary: entry.summary, origin: nil, links: entry.links, growing: nil, growsInSize: false, counts: counts,
          bytes: tallies.map { $0.leaks[fingerprint]?.entry.bytes ?? 0 },
          addedAt: added(tallies.map { $0.leaks[fingerprint]?.entry.sites ?? [:] }), fingerprint: fingerprint))
    }
    findings = found.sorted {
      ($0.countPerStep, $0.bytesPerStep, $1.summary) > ($1.countPerStep, $1.bytesPerStep, $0.summary)
    }
    growingTypes = last.types.keys.compactMap { name -> TypeGrowth? in
      let counts = tallies.map { $0.types[name]?.count ?? 0 }
      return grows(counts) ? TypeGrowth(typeName: name, counts: counts, bytes: tallies.map { $0.types[name]?.bytes ?? 0 }) : nil
    }
    .sorted { ($0.counts.last! - $0.counts.first!, $1.typeName) > ($1.counts.last! - $1.counts.first!, $0.typeName) }
    .prefix(20).map { $0 }
    snapshotCount = tallies.count
    self.minimumGrowingSteps = required
    totals = tallies.map { ($0.objectCount, $0.byteCount) }
    metadata = tallies.map(\.metadata)
  }

  /// Whether anything grew.
  public var hasGrowth: Bool { !findings.isEmpty }

  /// Which memory grew, from ``memoryBaseline`` to the last snapshot, when the snapshots record it.
  public var memory: MemoryGrowth? { MemoryGrowth(Array(metadata.map(\.memory)[memoryBaseline...])) }

  /// The snapshot (from 0) the memory is compared from: the second when there are four or more,
  /// since a program's first round warms it up (caches filled, threads and connections
  /// opened), otherwise the first.
  public var memoryBaseline: Int { snapshotCount >= 4 ? 1 : 0 }

  /// Readable names, with the home module of what grew.
  public var nameStyle: NameStyle {
    .readable(forTypeNames: findings.flatMap { $0.links.map(\.typeName) } + growingTypes.map(\.typeName))
  }
}
