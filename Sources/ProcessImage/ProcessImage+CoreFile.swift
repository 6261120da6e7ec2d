import CELFBuildID

#if canImport(Glibc)
  import Glibc
#endif

extension ProcessImage {
  /// Reads the ELF core file at `path` (the kernel's, or `gcore`'s): its threads and registers,
  /// and its segments, whose bytes are the core's (mapped, not copied) or, for the file-backed
  /// ones a core leaves out (code and read-only data of the executable and libraries), the
  /// mapped file's, found by file name in each of `binaryDirectories` first (binaries moved to
  /// another machine), then at the path the core records. A file whose build id differs from
  /// the one the core saw is not used. A file not found leaves its segments without contents,
  /// and a diagnostic says what to pass.
  ///
  /// ```swift
  /// let image = try ProcessImage.read(coreFile: "core.4242", binaryDirectories: ["/srv/symbols/app-1.2"])
  /// image.diagnostics.forEach { print($0) }
  /// ```
  public static func read(coreFile path: String, binaryDirectories: [String] = []) throws(ProcessImageFailure) -> ProcessImage {
    guard let file = SystemFiles.openRegularFile(path) else {
      let reason = SystemFiles.exists(path) ? "cannot be read (not a regular file, or permission denied)" : "no such file"
      throw ProcessImageFailure(.unreadableFile, "\(path): \(reason)")
    }
    let owned = OwnedMappings()
    let core: UnsafeRawBufferPointer
    if file.size == 0 {
      core = UnsafeRawBufferPointer(start: nil, count: 0)
    } else if let mapped = owned.file(file.descriptor, count: Int(file.size), offset: 0) {
      core = mapped
    } else {
      close(file.descriptor)
      throw ProcessImageFailure(.unreadableFile, "\(path): cannot be mapped into memory (\(String(cString: strerror(errno))))")
    }
    close(file.descriptor)
    let layout = try CoreFileLayout(parsing: core, name: path)
    var resolver = MappedFileResolver(layout: layout, core: core, binaryDirectories: binaryDirectories, owned: owned)
    var segments: [MemorySegment] = []
    var unnamed: (count: Int, bytes: UInt64) = (0, 0)
    for load in layout.loads where load.flags & 4 != 0 && load.memorySize > 0 {
      let start = UInt(load.virtualAddress)
      let end = UInt(load.virtualAddress + load.memorySize)
      let mapping = layout.fileMappings.first { $0.start <= load.virtualAddress && load.virtualAddress < $0.end }
      var contents: UnsafeRawBufferPointer?
      if load.fileSize >= load.memorySize {
        contents = UnsafeRawBufferPointer(rebasing: core[Int(load.fileOffset)..<Int(load.fileOffset + load.memorySize)])
      } else if let mapping {
        contents = resolver.contents(of: mapping, from: load.virtualAddress, count: Int(load.memorySize))
      } else {
        unnamed.count += 1
        unnamed.bytes += load.memorySize
      }
      segments.append(
        MemorySegment(
          start: start, end: end, isReadable: true, isWritable: load.flags & 2 != 0, isExecutable: load.flags & 1 != 0,
          path: mapping.map { withoutDeletedSuffix($0.path) },
          fileOffset: mapping.map { $0.fileOffset + (load.virtualAddress - $0.start) } ?? 0, contents: contents))
    }
    // gcore leaves out unmodified file-backed mappings entirely (no program header at all): their
    // bytes and permissions come from the file.
    for piece in uncoveredFileRanges(layout) {
      let count = Int(piece.end - piece.start)
      let flags = resolver.loadFlags(of: piece.mapping, at: piece.start)
      segments.append(
        MemorySegment(
          start: UInt(piece.start), end: UInt(piece.end), isReadable: true, isWritable: false, isExecutable: (flags ?? 0) & 1 != 0,
          path: withoutDeletedSuffix(piece.mapping.path), fileOffset: piece.mapping.fileOffset + (piece.start - piece.mapping.start),
          contents: resolver.contents(of: piece.mapping, from: piece.start, count: count)))
    }
    var diagnostics = layout.diagnostics + resolver.diagnostics
    if unnamed.count > 0 {
      diagnostics.append(
        "\(unnamed.count) readable segments (\(unnamed.bytes) bytes) are not in the core and map no file "
          + "(the kernel's coredump_filter left them out)")
    }
    let processID = layout.processInfo?.processID ?? layout.threads.first?.threadID ?? 0
    let threads = layout.threads.map { ThreadRegisters(threadID: $0.threadID, userRegisters: $0.registers, name: nil) }
    let executable = executablePath(of: layout, segments: segments)
    return ProcessImage(
      origin: .coreFile(path), processID: processID, executablePath: executable,
      commandLine: (layout.processInfo?.arguments ?? "").split(separator: " ").map(String.init), segments: segments,
      threads: threads, pauseDuration: nil, diagnostics: diagnostics, ownedMappings: owned.handOver())
  }

  /// The parts of the files `NT_FILE` lists that no `PT_LOAD` covers.
  static func uncoveredFileRanges(_ layout: CoreFileLayout) -> [(start: UInt64, end: UInt64, mapping: CoreFileLayout.FileMapping)] {
    let loads = layout.loads.filter { $0.memorySize > 0 }.sorted { $0.virtualAddress < $1.virtualAddress }
    var pieces: [(start: UInt64, end: UInt64, mapping: CoreFileLayout.FileMapping)] = []
    for mapping in layout.fileMappings where mapping.start < mapping.end {
      var cursor = mapping.start
      for load in loads where load.virtualAddress < mapping.end && load.virtualAddress + load.memorySize > cursor {
        if load.virtualAddress > cursor { pieces.append((cursor, load.virtualAddress, mapping)) }
        cursor = max(cursor, load.virtualAddress + load.memorySize)
        if cursor >= mapping.end { break }
      }
      if cursor < mapping.end { pieces.append((cursor, mapping.end, mapping)) }
    }
    return pieces
  }

  /// The executable of a core: the file mapped where the program's entry point is (`AT_ENTRY`),
  /// else the path at `AT_EXECFN` in its memory, else `NT_PRPSINFO`'s short name.
  private static func executablePath(of layout: CoreFileLayout, segments: [MemorySegment]) -> String? {
    let auxiliary = { (type: UInt64) in layout.auxiliaryVector.first { $0.type == type }?.value }
    if let entry = auxiliary(CoreFileLayout.auxiliaryEntry),
      let mapping = layout.fileMappings.first(where: { $0.start <= entry && entry < $0.end })
    {
      return withoutDeletedSuffix(mapping.path)
    }
    if let name = auxiliary(CoreFileLayout.auxiliaryExecutableFileName) {
      // Read through an image that owns nothing: the segments' memory stays the caller's.
      let lookup = ProcessImage(
        origin: .coreFile(""), processID: 0, executablePath: nil, commandLine: [], segments: segments, threads: [],
        pauseDuration: nil, diagnostics: [], ownedMappings: [])
      var bytes = [UInt8](repeating: 0, count: 4096)
      let count = bytes.withUnsafeMutableBytes { lookup.read(into: $0, at: UInt(name)) }
      let path = bytes.prefix(count).prefix { $0 != 0 }
      if !path.isEmpty { return String(decoding: path, as: UTF8.self) }
    }
    return layout.processInfo.map(\.fileName).flatMap { $0.isEmpty ? nil : $0 }
  }

  /// Whether the file at `path` is an ELF core file: the ELF magic, 64-bit (`ELFCLASS64`), of
  /// type `ET_CORE`.
  ///
  /// ```swift
  /// if ProcessImage.isCoreFile(argument) { image = try .read(coreFile: argument) }
  /// ```
  public static func isCoreFile(_ path: String) -> Bool {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var header = [UInt8](repeating: 0, count: 18)
    let count = header.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
    return count == 18 && header[0..<4] == [0x7f, 0x45, 0x4c, 0x46] && header[4] == 2 && header[5] == 1 && header[16] == 4
      && header[17] == 0
  }
}
