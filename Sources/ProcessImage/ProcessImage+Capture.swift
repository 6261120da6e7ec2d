import CProcessImage
import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

extension ProcessImage {
  /// Captures the running process `processID`: stops every thread (ptrace, `PTRACE_SEIZE`),
  /// reads their registers and copies every writable mapping, resumes it, then reads the
  /// read-only mappings (which cannot have changed) from their files or from the process.
  ///
  /// The target is stopped only for the registers and the writable copy (``pauseDuration``).
  /// Whatever happens, it is resumed: on every failure, and by the kernel if this process dies
  /// while it holds it.
  ///
  /// ```swift
  /// let image = try ProcessImage.capture(processID: 4242)
  /// print(image.threads.count, image.pauseDuration!)
  /// ```
  /// ```text
  /// 4 0.012 seconds
  /// ```
  public static func capture(processID: Int32, options: CaptureOptions = .init()) throws(ProcessImageFailure) -> ProcessImage {
    guard processID > 0 else { throw .noSuchProcess(processID) }
    let owned = OwnedMappings()
    // The copy's memory, allocated before the stop for the writable memory the maps list now
    // (and an eighth more): allocating and zeroing a page is a good part of copying it.
    let estimate = ProcessMapping.mappings(inMaps: SystemFiles.text(at: "/proc/\(processID)/maps") ?? "")
      .filter { $0.isReadable && $0.isWritable && !isSpecialKernelMapping($0) }.reduce(0) { $0 + Int($1.end - $1.start) }
    if let limit = options.maximumCopiedBytes, estimate > limit {
      throw ProcessImageFailure(
        .captureFailed, "process \(processID) has \(estimate) bytes of writable memory, more than the \(limit) the capture may copy")
    }
    // Only the pages that hold data are copied (``residentRuns(of:pagemap:)``): those are faulted
    // in now, the rest of the reserve stays unbacked.
    let pagemap = open("/proc/\(processID)/pagemap", O_RDONLY | O_CLOEXEC)
    defer { if pagemap >= 0 { close(pagemap) } }
    let reserve = estimate > 0 ? owned.anonymous(count: estimate + estimate / 8 + (1 << 20)) : nil
    if let reserve { prefault(reserve, forMappingsOf: processID, pagemap: pagemap) }
    var process = cpi_stopped_process()
    var stopFailure = cpi_stop_failure()
    guard cpi_stop_process(processID, &process, &stopFailure) == 0 else { throw failure(stopping: processID, stopFailure) }
    let stopped: StoppedCopy
    do {
      stopped = try copyWhileStopped(&process, options: options, reserve: reserve, pagemap: pagemap, owned: owned)
    } catch {
      cpi_resume_process(&process)
      throw error
    }
    let firstStop = process.firstStopNanoseconds
    let resumed = cpi_resume_process(&process)
    let pause = Duration.nanoseconds(Int64(resumed &- firstStop))
    if let reserve { owned.shrink(reserve, to: stopped.reserveUsed) }

    var diagnostics = stopped.diagnostics
    let readOnly = readReadOnly(stopped.readOnlyMappings, of: processID, owned: owned, diagnostics: &diagnostics)
    let threads = stopped.registers.map { thread in
      ThreadRegisters(
        threadID: thread.threadID, userRegisters: thread.words,
        name: SystemFiles.text(at: "/proc/\(processID)/task/\(thread.threadID)/comm").map { String($0.prefix { $0 != "\n" }) })
    }
    let commandLine = (SystemFiles.bytes(at: "/proc/\(processID)/cmdline") ?? [])
      .split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
    return ProcessImage(
      origin: .process(processID), processID: processID,
      executablePath: SystemFiles.linkTarget(at: "/proc/\(processID)/exe").map(Self.withoutDeletedSuffix), commandLine: commandLine,
      segments: stopped.writable + readOnly, threads: threads, pauseDuration: pause, diagnostics: diagnostics,
      ownedMappings: owned.handOver())
  }

  /// What the capture read while the target was stopped.
  private struct StoppedCopy {
    var registers: [(threadID: Int32, words: [UInt])] = []
    var writable: [MemorySegment] = []
    var readOnlyMappings: [ProcessMapping] = []
    var diagnostics: [String] = []
    /// How many bytes of the memory allocated before the stop the copy used.
    var reserveUsed = 0
  }

  /// Reads the registers of every stopped thread and the maps, copies the writable mappings,
  /// then runs the test hook.
  private static func copyWhileStopped(
    _ process: inout cpi_stopped_process, options: CaptureOptions, reserve: UnsafeMutableRawBufferPointer?, pagemap: Int32,
    owned: OwnedMappings
  ) throws(ProcessImageFailure) -> StoppedCopy {
    let processID = process.processID
    var copy = StoppedCopy()
    for index in 0..<process.count {
      let threadID = process.threadIDs[index]
      var registers = user_regs_struct()
      let error = cpi_thread_registers(threadID, &registers)
      guard error == 0 else {
        copy.diagnostics.append("thread \(threadID): its registers could not be read (\(String(cString: strerror(error))))")
        continue
      }
      let words = withUnsafeBytes(of: &registers) { Array($0.bindMemory(to: UInt.self)) }
      copy.registers.append((threadID, words))
    }
    guard let maps = SystemFiles.text(at: "/proc/\(processID)/maps") else {
      throw ProcessImageFailure(.captureFailed, "cannot read /proc/\(processID)/maps: the process ended or may not be read")
    }
    let mappings = ProcessMapping.mappings(inMaps: maps).filter { $0.isReadable && !isSpecialKernelMapping($0) }
    let writable = mappings.filter(\.isWritable)
    copy.readOnlyMappings = mappings.filter { !$0.isWritable }
    let total = writable.reduce(UInt(0)) { $0 + UInt($1.end - $1.start) }
    if let limit = options.maximumCopiedBytes, total > limit {
      throw ProcessImageFailure(
        .captureFailed, "process \(processID) has \(total) bytes of writable memory, more than the \(limit) the capture may copy")
    }
    let fits = reserve.map { Int(total) <= $0.count } ?? false
    copy.writable = copyMappings(
      writable, of: processID, into: fits ? reserve : nil, pagemap: pagemap, owned: owned, diagnostics: &copy.diagnostics)
    copy.reserveUsed = fits ? Int(total) : 0
    options.whileStopped?()
    if let failure = options.failureWhileStopped?() { throw failure }
    return copy
  }

  /// `[vvar]` (and its newer `[vvar_vclock]`) and `[vsyscall]`: kernel pages a read may fault on
  /// and that hold nothing of the program's.
  private static func isSpecialKernelMapping(_ mapping: ProcessMapping) -> Bool {
    mapping.pathname.hasPrefix("[vvar") || mapping.pathname == "[vsyscall]"
  }

  /// Copies `mappings` of `processID` into `destination` (at least as long as they are) or, when
  /// `nil`, one new anonymous mapping of this process; a mapping that cannot be read whole has no
  /// contents and a diagnostic.
  private static func copyMappings(
    _ mappings: [ProcessMapping], of processID: Int32, into destination: UnsafeMutableRawBufferPointer? = nil, pagemap: Int32 = -1,
    owned: OwnedMappings, diagnostics: inout [String]
  ) -> [MemorySegment] {
    let lengths = mappings.map { Int($0.end - $0.start) }
    let total = lengths.reduce(0, +)
    guard !mappings.isEmpty else { return [] }
    guard let copy = destination ?? owned.anonymous(count: total) else {
      diagnostics.append("could not map \(total) bytes of memory to copy the process's writable memory into")
      return mappings.map { segment(of: $0, contents: nil) }
    }
    // Each mapping's place in the copy, and the runs of it that are copied (untouched anonymous
    // pages are left as the copy's zeros).
    var bases: [UnsafeMutableRawPointer] = []
    var locals: [UnsafeMutableRawPointer?] = []
    var starts: [UInt] = []
    var runLengths: [Int] = []
    var owners: [Int] = []
    var offset = 0
    for (index, mapping) in mappings.enumerated() {
      let base = copy.baseAddress! + offset
      bases.append(base)
      for run in residentRuns(of: mapping, pagemap: pagemap) {
        locals.append(base + Int(run.start - UInt(mapping.start)))
        starts.append(run.start)
        runLengths.append(run.length)
        owners.append(index)
      }
      offset += lengths[index]
    }
    var copied = [Int](repeating: 0, count: starts.count)
    cpi_copy_memory(processID, locals, starts, runLengths, starts.count, &copied)
    var failed = [Int](repeating: 0, count: mappings.count)
    for run in starts.indices where copied[run] != runLengths[run] { failed[owners[run]] += runLengths[run] - copied[run] }
    return mappings.indices.map { index in
      guard failed[index] == 0 else {
        diagnostics.append("\(describe(mappings[index])): could not be read (\(failed[index]) of \(lengths[index]) bytes missing)")
        return segment(of: mappings[index], contents: nil)
      }
      return segment(of: mappings[index], contents: UnsafeRawBufferPointer(start: bases[index], count: lengths[index]))
    }
  }

  /// The runs of `mapping` to copy: of anonymous memory, only the pages that hold data (the
  /// `pagemap` says which: a reservation a program never touched reads as zeros and costs no
  /// copy); of a mapped file, all of it (a page not yet read holds the file's bytes).
  static func residentRuns(of mapping: ProcessMapping, pagemap: Int32) -> [(start: UInt, length: Int)] {
    let start = UInt(mapping.start)
    let end = UInt(mapping.end)
    guard pagemap >= 0, mapping.inode == 0 else { return [(start, Int(end - start))] }
    var runStarts = [UInt](repeating: 0, count: 256)
    var runLengths = [Int](repeating: 0, count: 256)
    var count = cpi_resident_runs(pagemap, start, end, &runStarts, &runLengths, runStarts.count)
    if count > runStarts.count {
      runStarts = [UInt](repeating: 0, count: count)
      runLengths = [Int](repeating: 0, count: count)
      count = min(cpi_resident_runs(pagemap, start, end, &runStarts, &runLengths, count), count)
    }
    return (0..<count).map { (runStarts[$0], runLengths[$0]) }
  }

  /// Faults in the pages of `reserve` that the copy of the writable mappings of `processID` as
  /// they are now will write (the pages that hold data), laid out as ``copyMappings`` lays them.
  private static func prefault(_ reserve: UnsafeMutableRawBufferPointer, forMappingsOf processID: Int32, pagemap: Int32) {
    let mappings = ProcessMapping.mappings(inMaps: SystemFiles.text(at: "/proc/\(processID)/maps") ?? "")
      .filter { $0.isReadable && $0.isWritable && !isSpecialKernelMapping($0) }
    var offset = 0
    for mapping in mappings {
      for run in residentRuns(of: mapping, pagemap: pagemap) {
        let at = offset + Int(run.start - UInt(mapping.start))
        guard at + run.length <= reserve.count else { return }
        var page = at
        while page < at + run.length {
          reserve[page] = 0
          page += 4096
        }
      }
      offset += Int(mapping.end - mapping.start)
    }
  }

  /// Reads the read-only mappings of the resumed process: mapped from their file when it is the
  /// one mapped (same inode) and the process changed none of its pages (`smaps` counts no
  /// anonymous pages: relocated read-only data such as RELRO has some), else copied.
  private static func readReadOnly(
    _ mappings: [ProcessMapping], of processID: Int32, owned: OwnedMappings, diagnostics: inout [String]
  ) -> [MemorySegment] {
    let changedPages = anonymousKilobytes(inSmaps: SystemFiles.text(at: "/proc/\(processID)/smaps") ?? "")
    var segments: [MemorySegment] = []
    var toCopy: [ProcessMapping] = []
    for mapping in mappings {
      if changedPages[mapping.start] == 0, !mapping.isDeletedFile, let path = mapping.filePath,
        let contents = mapFile(path, inode: mapping.inode, offset: mapping.offset, count: Int(mapping.end - mapping.start), owned: owned)
      {
        segments.append(segment(of: mapping, contents: contents))
      } else {
        toCopy.append(mapping)
      }
    }
    return segments + copyMappings(toCopy, of: processID, owned: owned, diagnostics: &diagnostics)
  }

  /// `count` bytes of the regular file at `path` from `offset`, mapped read-only, when its inode
  /// is `inode` and it holds them all (a page past a file's end faults when read).
  static func mapFile(_ path: String, inode: UInt64?, offset: UInt64, count: Int, owned: OwnedMappings) -> UnsafeRawBufferPointer? {
    guard let file = SystemFiles.openRegularFile(path) else { return nil }
    defer { close(file.descriptor) }
    let pageSize = UInt64(SystemFiles.pageSize)
    let pagesInFile = (file.size + pageSize - 1) / pageSize * pageSize
    guard inode.map({ $0 == file.inode }) ?? true, offset % pageSize == 0, offset + UInt64(count) <= pagesInFile else { return nil }
    return owned.file(file.descriptor, count: count, offset: offset)
  }

  /// The `Anonymous:` kilobytes of each mapping of a `/proc/PID/smaps` text, by start address.
  static func anonymousKilobytes(inSmaps text: String) -> [UInt64: UInt64] {
    var result: [UInt64: UInt64] = [:]
    var current: UInt64?
    for line in text.split(separator: "\n") {
      if line.hasPrefix("Anonymous:"), let start = current {
        result[start] = UInt64(line.dropFirst("Anonymous:".count).split(separator: " ").first ?? "")
      } else if let mapping = ProcessMapping(mapsLine: line) {
        current = mapping.start
      }
    }
    return result
  }

  /// The segment of a mapping, with `contents`.
  private static func segment(of mapping: ProcessMapping, contents: UnsafeRawBufferPointer?) -> MemorySegment {
    MemorySegment(
      start: UInt(mapping.start), end: UInt(mapping.end), isReadable: mapping.isReadable, isWritable: mapping.isWritable,
      isExecutable: mapping.isExecutable, path: mapping.filePath ?? (mapping.pathname.isEmpty ? nil : mapping.pathname),
      fileOffset: mapping.filePath == nil ? 0 : mapping.offset, contents: contents)
  }

  /// A mapping as a diagnostic names it: `0x7f..-0x7f.. (/usr/lib/libc.so.6)`.
  private static func describe(_ mapping: ProcessMapping) -> String {
    let range = "0x\(String(mapping.start, radix: 16))-0x\(String(mapping.end, radix: 16))"
    return mapping.pathname.isEmpty ? range : "\(range) (\(mapping.pathname))"
  }

  /// `path` without the ` (deleted)` the kernel adds after a removed file's.
  static func withoutDeletedSuffix(_ path: String) -> String {
    path.hasSuffix(ProcessMapping.deletedSuffix) ? String(path.dropLast(ProcessMapping.deletedSuffix.count)) : path
  }

  /// The failure `cpi_stop_process` reported, in plain words.
  private static func failure(stopping processID: Int32, _ failure: cpi_stop_failure) -> ProcessImageFailure {
    switch failure.error {
    case ESRCH: return .noSuchProcess(processID)
    case EPERM:
      let scope = SystemFiles.text(at: "/proc/sys/kernel/yama/ptrace_scope").flatMap {
        Int($0.filter { !$0.isWhitespace })
      }
      return .permissionDenied(processID: processID, yamaPtraceScope: scope)
    case EBUSY:
      let name = SystemFiles.text(at: "/proc/\(failure.tracerID)/comm").map { String($0.prefix { $0 != "\n" }) }
      return .alreadyTraced(processID: processID, threadID: failure.threadID, tracerID: failure.tracerID, tracerName: name)
    case ETIMEDOUT:
      return ProcessImageFailure(
        .captureFailed, "cannot capture process \(processID): its thread \(failure.threadID) did not stop within 5 seconds")
    case EAGAIN:
      return ProcessImageFailure(.captureFailed, "cannot capture process \(processID): it keeps creating threads faster than they stop")
    default:
      return ProcessImageFailure(
        .captureFailed,
        "cannot capture process \(processID): thread \(failure.threadID): \(String(cString: strerror(failure.error)))")
    }
  }
}
