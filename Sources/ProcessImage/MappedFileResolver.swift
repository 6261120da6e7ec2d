import CELFBuildID

/// Finds, checks and maps the files a core names for the segments it left out (`NT_FILE`): by
/// file name in each binary directory first, then at the recorded path; a candidate whose GNU
/// build id differs from the one in the core's copy of the image's first page is not used.
/// Each file is looked up once; a missing one gives one diagnostic.
///
/// ```swift
/// var resolver = MappedFileResolver(layout: layout, core: bytes, binaryDirectories: ["/srv/app"], owned: owned)
/// let code = resolver.contents(of: mapping, from: load.virtualAddress, count: Int(load.memorySize))
/// ```
struct MappedFileResolver {
  private let layout: CoreFileLayout
  private let core: UnsafeRawBufferPointer
  private let binaryDirectories: [String]
  private let owned: OwnedMappings
  /// The file found for each recorded path (`nil`: none).
  private var found: [String: String?] = [:]
  private(set) var diagnostics: [String] = []

  init(layout: CoreFileLayout, core: UnsafeRawBufferPointer, binaryDirectories: [String], owned: OwnedMappings) {
    self.layout = layout
    self.core = core
    self.binaryDirectories = binaryDirectories
    self.owned = owned
  }

  /// `count` bytes of `mapping`'s file for the segment at `address`, mapped read-only, or `nil`.
  mutating func contents(of mapping: CoreFileLayout.FileMapping, from address: UInt64, count: Int) -> UnsafeRawBufferPointer? {
    guard let path = file(for: mapping.path) else { return nil }
    let offset = mapping.fileOffset + (address - mapping.start)
    guard let contents = ProcessImage.mapFile(path, inode: nil, offset: offset, count: count, owned: owned) else {
      diagnostics.append("\(path): too short for the segment at \(hex(address)) (\(count) bytes from offset \(hex(offset))); left out")
      return nil
    }
    return contents
  }

  /// The `p_flags` (`PF_X` 1, `PF_W` 2, `PF_R` 4) of the file's own `PT_LOAD` that holds the
  /// bytes `mapping` maps at `address`, or `nil` when the file is not found or says nothing.
  mutating func loadFlags(of mapping: CoreFileLayout.FileMapping, at address: UInt64) -> UInt32? {
    guard let path = file(for: mapping.path), let header = SystemFiles.bytes(at: path, count: 64) else { return nil }
    let (headers, count, size) = header.withUnsafeBytes { bytes in
      let reader = ByteReader(bytes: bytes)
      return (reader.u64(32), Int(reader.u16(56)), reader.u16(54))
    }
    guard size == 56, count > 0, let table = SystemFiles.bytes(at: path, from: headers, count: count * 56) else { return nil }
    let offset = mapping.fileOffset + (address - mapping.start)
    return table.withUnsafeBytes { bytes -> UInt32? in
      let programHeaders = ByteReader(bytes: bytes)
      for index in 0..<count where programHeaders.u32(index * 56) == 1 {
        let start = programHeaders.u64(index * 56 + 8) & ~UInt64(SystemFiles.pageSize - 1)
        let end = programHeaders.u64(index * 56 + 8) + programHeaders.u64(index * 56 + 32)
        if offset >= start && offset < end { return programHeaders.u32(index * 56 + 4) }
      }
      return nil
    }
  }

  /// The file to read for the recorded `path`, looked up once.
  private mutating func file(for recordedPath: String) -> String? {
    // The kernel and gdb record a removed file's path with " (deleted)" after it.
    let path = ProcessImage.withoutDeletedSuffix(recordedPath)
    if let known = found[path] { return known }
    let expected = buildIDInCore(of: path)
    let name = path.split(separator: "/").last.map(String.init) ?? path
    var rejected: [String] = []
    var result: String?
    for candidate in binaryDirectories.map({ "\($0)/\(name)" }) + [path] where SystemFiles.exists(candidate) {
      if expected.isEmpty || Self.buildID(ofFile: candidate) == expected {
        result = candidate
        break
      }
      rejected.append(candidate)
    }
    found[path] = result
    if result == nil {
      let why =
        rejected.isEmpty
        ? "is missing" : "is missing or not the one the process mapped (build id differs: \(rejected.joined(separator: ", ")))"
      let lookedIn = binaryDirectories.isEmpty ? "" : " (looked in \(binaryDirectories.joined(separator: ", ")) too)"
      diagnostics.append(
        "\(path) \(why)\(lookedIn): the core does not hold its unmodified segments, which have no contents; "
          + "pass a directory holding a copy of it in binaryDirectories")
    }
    return result
  }

  /// The build id of the image `path` as the core saw it: from the core's copy of the first
  /// page of its mapping at file offset 0, when the core has it; empty otherwise.
  private func buildIDInCore(of path: String) -> [UInt8] {
    guard let first = layout.fileMappings.first(where: { $0.path == path && $0.fileOffset == 0 }),
      let load = layout.loads.first(where: { $0.virtualAddress == first.start && $0.fileSize > 0 })
    else { return [] }
    return CoreFileLayout.buildID(
      ofImageStart: UnsafeRawBufferPointer(rebasing: core[Int(load.fileOffset)..<Int(load.fileOffset + load.fileSize)]))
  }

  private static func buildID(ofFile path: String) -> [UInt8] {
    var buildID = [UInt8](repeating: 0, count: Int(CLEAK_BUILD_ID_CAPACITY))
    let length = buildID.withUnsafeMutableBytes {
      cleak_build_id_of_file(path, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), $0.count)
    }
    return Array(buildID.prefix(length))
  }
}
