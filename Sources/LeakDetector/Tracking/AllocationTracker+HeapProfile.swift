import CLeakRuntime
import GzipCompression
import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

extension AllocationTracker {
  /// The heap profile of the tracked objects alive now (optionally of one generation), in
  /// pprof's format, for `go tool pprof`, Pyroscope or Parca: the objects by type and allocation
  /// stack (`HeapProfile`), with the executable mappings and mangled names of this process; its
  /// comment names `process` (by default, this process's command line and id).
  ///
  /// It is read from the tracker's own table, in this process, while other threads run: no
  /// capture child is forked and nothing is walked, so it costs a copy of the table and the
  /// symbolization of each new stack. The tracker knows class instances only (no closure
  /// contexts, boxes or tasks), and each object's size is its own allocation, not the storage
  /// of its arrays and strings that a capture adds (``snapshot(inGeneration:process:limits:)``).
  ///
  /// Tracking every object, the tracker keeps no record of freed ones: `alloc_*` equals
  /// `inuse_*`, and the period is 0. With sampled tracking (``Configuration/sampleInterval``)
  /// the period is the sampling interval, values are scaled as Go scales its heap profiles, and
  /// `alloc_*` counts every sampled allocation of each stack since tracking started, freed ones
  /// included (a stack whose samples were all freed has a sample of its own, labelled with the
  /// type of the last allocation sampled there). Objects allocated while no stacks were recorded are
  /// under `(no stack recorded)`.
  ///
  /// ```swift
  /// AllocationTracker.start(.init(sampleInterval: AllocationTracker.Configuration.defaultSampleInterval))
  /// serveRequests()
  /// try AllocationTracker.writeHeapProfile(to: "heap.pb.gz")
  /// ```
  /// ```text
  /// $ go tool pprof -top heap.pb.gz
  /// ```
  public static func heapProfile(inGeneration generation: Int? = nil, process: String? = nil) -> HeapProfile {
    struct Group: Hashable {
      var metadata: UInt
      var stack: UInt32
    }
    var live: [Group: (objects: Int, bytes: Int)] = [:]
    for entry in entries(inGeneration: generation) {
      let group = Group(metadata: entry.metadata, stack: entry.stack)
      live[group, default: (0, 0)].objects += 1
      live[group, default: (0, 0)].bytes += Int(entry.size)
    }
    let interval = sampleInterval
    let allocated = interval > 0 ? sampledStackTotals() : [:]
    var names: [UInt: String] = [:]
    var sites = live.map { group, total in
      let name = names[group.metadata] ?? RuntimeReflector.shared.className(metadata: group.metadata) ?? "<unknown class>"
      names[group.metadata] = name
      return (stack: group.stack, site: HeapProfile.Site(typeName: name, frames: nil, objects: total.objects, bytes: total.bytes))
    }.sorted { ($0.site.typeName ?? "", $0.stack) < ($1.site.typeName ?? "", $1.stack) }
    // Each sampled stack's totals go to its first site (a stack allocates one type but for a
    // metatype chosen at run time); its other sites count their live objects as allocated.
    var sitesByStack: [UInt32: [Int]] = [:]
    for (index, entry) in sites.enumerated() { sitesByStack[entry.stack, default: []].append(index) }
    for (stack, total) in allocated.sorted(by: { $0.key < $1.key }) {
      guard let indices = sitesByStack[stack] else {
        let name = names[total.metadata] ?? RuntimeReflector.shared.className(metadata: total.metadata)
        names[total.metadata] = name
        sites.append(
          (stack, .init(typeName: name, frames: nil, objects: 0, bytes: 0, allocatedObjects: total.count, allocatedBytes: total.bytes)))
        continue
      }
      var others = (objects: 0, bytes: 0)
      for other in indices.dropFirst() {
        sites[other].site.allocatedObjects = sites[other].site.objects
        sites[other].site.allocatedBytes = sites[other].site.bytes
        others = (others.objects + sites[other].site.objects, others.bytes + sites[other].site.bytes)
      }
      let first = indices[0]
      sites[first].site.allocatedObjects = max(total.count - others.objects, sites[first].site.objects)
      sites[first].site.allocatedBytes = max(total.bytes - others.bytes, sites[first].site.bytes)
    }
    var frames: [UInt32: [StackFrame]] = [:]
    for index in sites.indices where sites[index].stack != 0 {
      let stack = sites[index].stack
      if frames[stack] == nil { frames[stack] = allocationStack(ofStack: stack) }
      sites[index].site.frames = frames[stack]
    }
    let process = process ?? CommandLine.arguments.joined(separator: " ") + " (pid \(getpid()))"
    let profile = HeapProfile(
      sites: sites.map(\.site), samplingInterval: interval, timeNanos: HeapProfile.nowNanoseconds(),
      comments: ["live objects of \(process)"])
    return profile.describingThisProcess()
  }

  /// Writes ``heapProfile(inGeneration:process:)`` to `path` as pprof's files hold it, gzipped
  /// (by the system's zlib), atomically (`FileBytes.writeAtomically`).
  public static func writeHeapProfile(
    to path: String, inGeneration generation: Int? = nil, process: String? = nil
  ) throws(FileBytes.Failure) {
    let profile = heapProfile(inGeneration: generation, process: process)
    try FileBytes.writeAtomically(Gzip.compress(profile.pprofProfile.serializedBytes()), to: path)
  }

  /// Every stack sampled tracking took allocations at, with their totals: the tracker's stack
  /// ids run from 1 without gaps, up to the last stack it recorded.
  private static func sampledStackTotals() -> [UInt32: (count: Int, bytes: Int, metadata: UInt)] {
    var totals: [UInt32: (count: Int, bytes: Int, metadata: UInt)] = [:]
    var id: UInt32 = 1
    while !programCounters(ofStack: id).isEmpty {
      if let total = sampledAllocations(stackID: id) { totals[id] = total }
      id += 1
    }
    return totals
  }
}
