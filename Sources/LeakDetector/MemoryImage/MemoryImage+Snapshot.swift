import CLeakRuntime
import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

extension MemoryImage {
  /// A heap snapshot of the installed image (``install()``): every live Swift object found in its
  /// heap without a tracker (``discoveredObjects()``), what each strongly references, and the
  /// roots a leak analysis needs: the objects that the images' global data, each thread's stack
  /// (from its stack pointer up) and registers, and each thread's static TLS refer to, and those
  /// held from outside the snapshot (reference counts). No allocation stacks: no tracker recorded
  /// them. Read by the capture engine of live captures, in a capture child.
  ///
  /// ```swift
  /// image.install()
  /// let snapshot = image.snapshot(process: "server")
  /// ```
  package func snapshot(process: String?, limits: CaptureLimits = CaptureLimits()) -> (snapshot: HeapSnapshot, failure: CaptureFailure?) {
    var configuration = RetainCycleDetector.Configuration()
    configuration.maxObjects = Int.max
    var metadata = HeapSnapshot.Metadata(
      tool: "swift-leak-detector capture", createdAt: AllocationTracker.timestamp(), process: process)
    metadata.processID = processID
    metadata.arguments = arguments
    metadata.captureMilliseconds = pauseMilliseconds
    let starts = discoveredObjects().filter { $0.kind == cleak_found_class_instance || $0.kind == cleak_found_task }
    var annotations: [UInt: HeapWalk.Annotation] = [:]
    for object in starts { annotations[object.object] = HeapWalk.Annotation(generation: nil, size: Int(object.size), stackID: 0) }
    let regions = rootRegions()
    let (_, captured, failure) = CapturedHeap.inChildProcess(limits: limits, metadata: metadata) { progress in
      var walk = HeapWalk(configuration: configuration, progress: progress, metadata: metadata, annotations: annotations)
      for object in starts { walk.addStart(address: object.object) }
      return walk.run().rooted(in: regions).accounted(retainedByCaller: [:], census: nil)
    }
    var snapshot = captured
    snapshot.metadata.diagnosticRecords =
      notes.map { CaptureDiagnostic(kind: .memoryNotRead, message: $0) } + snapshot.metadata.diagnosticRecords
    return (snapshot, failure)
  }

  /// The live Swift heap objects of the installed image, found from their headers in its heap:
  /// its anonymous writable memory, but for thread stacks (whose objects, promoted to the stack
  /// by the optimizer, are no heap objects).
  package func discoveredObjects() -> [cleak_found_object] {
    let stacks = Set(
      threads.compactMap { thread in segments.firstIndex { $0.start <= thread.stackPointer && thread.stackPointer < $0.end } })
    var ranges: [cleak_memory_range] = []
    for (index, segment) in segments.enumerated()
    where segment.isWritable && !segment.mapsFile && segment.path != "[stack]" && !stacks.contains(index) && segment.bytes != nil {
      ranges.append(cleak_memory_range(start: segment.start, end: segment.end))
    }
    // An image's .bss past its file's last page is global data, not heap.
    let globals = loadedImages.flatMap(\.writable)
    ranges.removeAll { range in globals.contains { $0.start <= range.start && range.end <= $0.end } }
    var count = 0
    guard let found = cleak_memory_image_find_objects(&ranges, ranges.count, allocatesWithGlibc, &count) else { return [] }
    defer { free(found) }
    return Array(UnsafeBufferPointer(start: found, count: count))
  }

  /// Whether the process allocates with glibc's `malloc`, whose blocks' headers can be read: no
  /// other allocator (jemalloc, mimalloc, tcmalloc) is loaded or linked into the program.
  var allocatesWithGlibc: Bool {
    let others = ["libjemalloc", "libmimalloc", "libtcmalloc"]
    let loaded = loadedImages.contains { image in others.contains { (image.path.split(separator: "/").last ?? "").hasPrefix($0) } }
    return !loaded && ProcessSymbols.address(of: "mallocx") == nil && ProcessSymbols.address(of: "mi_malloc") == nil
  }

  /// The regions whose words hold the roots: every image's global data, each thread's stack from
  /// its stack pointer (less the red zone) up, its registers, and its static TLS.
  func rootRegions() -> [RootRegion] {
    var regions = loadedImages.flatMap { image in image.writable.map { RootRegion(start: $0.start, end: $0.end, kind: .global, label: nil) }
    }
    for (position, thread) in threads.enumerated() {
      let name = position == 0 ? "main thread" : "thread \(thread.id)" + (thread.name.map { " (\($0))" } ?? "")
      if let stack = segments.first(where: { $0.start <= thread.stackPointer && thread.stackPointer < $0.end }) {
        regions.append(
          RootRegion(start: max(stack.start, thread.stackPointer &- cleak_stack_red_zone), end: stack.end, kind: .stack, label: name))
      }
      regions.append(RootRegion(start: 0, end: 0, kind: .stack, label: "\(name) registers", copiedWords: thread.registers))
      // glibc keeps a thread's static TLS just below its descriptor, at the thread pointer; a
      // thread's stack mapping holds both, the main thread's lie in a mapping of their own, which
      // the kernel may have merged with memory mapped below it (a large malloc block): only the
      // images' TLS blocks are read.
      if thread.threadPointer != 0, let tls = segments.first(where: { $0.start <= thread.threadPointer && thread.threadPointer < $0.end }),
        !(tls.start <= thread.stackPointer && thread.stackPointer < tls.end)
      {
        let start = max(tls.start, thread.threadPointer &- staticTLSReach)
        let end = min(tls.end, thread.threadPointer &+ UInt(cleak_glibc_thread_descriptor_size))
        regions.append(RootRegion(start: start, end: end, kind: .threadLocal, label: name, copiedWords: nil))
      }
    }
    return regions
  }

  /// How far below the thread pointer static TLS is read: the TLS blocks of the loaded images
  /// (the program's and its libraries' `__thread` variables) and glibc's surplus for libraries
  /// opened later, rounded up to a page; 64 KiB when an image's file is not at hand.
  var staticTLSReach: UInt {
    guard loadedImages.allSatisfy({ $0.localFile != nil }) else { return 64 << 10 }
    let blocks = loadedImages.reduce(0) { sum, image in sum + (image.localFile.map { UInt(cleak_elf_tls_block_size($0)) } ?? 0) }
    return (blocks + Self.staticTLSSurplus + Self.pageSize - 1) & ~(Self.pageSize - 1)
  }

  /// glibc's static TLS surplus (`rtld.optional_static_tls` and what its own libraries take).
  static let staticTLSSurplus: UInt = 2_048
}
