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
    /// The lines that allocated the objects added over the steps, most objects first: for a
    /// path, those of what its objects hold (``holds``) too, so the line that made a closure or a
    /// task and the line that made what it keeps.
    public var addedAt: [HeapTally.SiteCount]
    /// The identity of the finding across runs: its kind and summary.
    public var fingerprint: Fingerprint
    /// What the objects that grew hold, that grew with them, by type: the `Listener` each closure
    /// appended per round captures, the task a continuation kept per round resumes and the
    /// worker that task keeps; for a leak, what its instances keep alive. A path's
    /// ``counts`` include these objects, and its ``bytes`` (a leak's too) their sizes.
    public var holds: [Held] = []

    /// Objects of one type that the objects of a finding hold, in each snapshot.
    ///
    /// ```text
    /// holds: Listener 1 -> 2 -> 3 -> 4
    /// ```
    public struct Held: Sendable, Hashable {
      public var typeName: String
      public var counts: [Int]

      public init(typeName: String, counts: [Int]) {
        self.typeName = typeName
        self.counts = counts
      }
    }

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
    func added(_ sites: [[String: HeapTally.SiteCount]], limit: Int = 3) -> [HeapTally.SiteCount] {
      var total: [String: HeapTally.SiteCount] = [:]
      for (before, after) in zip(sites, sites.dropFirst()) {
        for (key, site) in after {
          let more = site.count - (before[key]?.count ?? 0)
          if more > 0 { total[key, default: HeapTally.SiteCount(site: site.site, count: 0)].count += more }
        }
      }
      return total.sorted { ($1.value.count, $0.key) < ($0.value.count, $1.key) }.prefix(limit).map(\.value)
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
    // The paths whose count grew below each top: what its objects hold, grown with them (not
    // where a task waits: no allocation).
    var heldBelow: [UInt64: [UInt64]] = [:]
    for (key, top) in topOf where growingPaths[key]?.inSize == false {
      guard let type = last.paths[key]?.path.links.last?.typeName, !SuspensionPoint.isSuspensionPoint(type) else { continue }
      heldBelow[top, default: []].append(key)
    }
    var found: [Finding] = []
    for (key, growth) in growingPaths where topOf[key] == nil {
      guard let entry = last.paths[key] else { continue }
      let links = entry.path.links
      let below = heldBelow[key] ?? []
      let holds = Self.held(below: below, in: tallies)
      // The lines that added the top's objects and what they hold (a closure's and its
      // capture's, a task's and its worker's); lines without a source location (a thunk's
      // context) only when no line has one.
      var sites = added(
        tallies.map { tally in
          ([key] + below).reduce(into: [:]) { sites, path in
            sites.merge(tally.paths[path]?.entry.sites ?? [:]) { HeapTally.SiteCount(site: $0.site, count: $0.count + $1.count) }
          }
        }, limit: 3 + holds.count)
      if sites.contains(where: { $0.site.sourceLocation != nil }) { sites.removeAll { $0.site.sourceLocation == nil } }
      found.append(
        Finding(
          kind: .path, summary: entry.path.description, origin: entry.path.origin, links: links,
          growing: growth.inSize
            ? links.last.map { HeapFinding.Link(typeName: $0.typeName, reference: nil) } : links.count >= 2 ? links[links.count - 2] : nil,
          growsInSize: growth.inSize,
          counts: holds.reduce(growth.counts) { counts, held in zip(counts, held.counts).map(+) },
          bytes: tallies.map { $0.paths[key]?.entry.bytes ?? 0 }, addedAt: sites,
          fingerprint: Fingerprint(parts: ["growth", "path", DataLabel.redacted(entry.path.description)]), holds: holds))
    }
    for (fingerprint, entry) in last.leaks {
      let counts = tallies.map { $0.leaks[fingerprint]?.entry.count ?? 0 }
      guard grows(counts) else { continue }
      found.append(
        Finding(
          kind: .leak, summary: entry.summary, origin: nil, links: entry.links, growing: nil, growsInSize: false, counts: counts,
          bytes: tallies.map { $0.leaks[fingerprint]?.entry.bytes ?? 0 },
          addedAt: added(tallies.map { $0.leaks[fingerprint]?.entry.sites ?? [:] }), fingerprint: fingerprint,
          // Not the types its title names (the other objects of its cycle).
          holds: entry.held.keys.sorted().filter { type in !entry.links.contains { $0.typeName == type } }.map { type in
            Finding.Held(typeName: type, counts: tallies.map { $0.leaks[fingerprint]?.held[type] ?? 0 })
          }.filter { grows($0.counts) }.sorted { ($1.counts.last ?? 0, $0.typeName) < ($0.counts.last ?? 0, $1.typeName) }))
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

  /// What the paths `below` a growing path (those whose count grew) hold, by the type of their
  /// last object, with their objects in each snapshot of `tallies`; the most first.
  private static func held(below: [UInt64], in tallies: [HeapTally]) -> [Finding.Held] {
    guard let last = tallies.last else { return [] }
    var countsByType: [String: [Int]] = [:]
    for key in below {
      guard let typeName = last.paths[key]?.path.links.last?.typeName else { continue }
      let counts = tallies.map { $0.paths[key]?.entry.count ?? 0 }
      countsByType[typeName] = countsByType[typeName].map { zip($0, counts).map(+) } ?? counts
    }
    return countsByType.map { Finding.Held(typeName: $0.key, counts: $0.value) }
      .sorted { ($1.counts.last ?? 0, $0.typeName) < ($0.counts.last ?? 0, $1.typeName) }
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
    .readable(
      forTypeNames: findings.flatMap { $0.links.map(\.typeName) + $0.holds.map(\.typeName) } + growingTypes.map(\.typeName))
  }
}
