import CELFBuildID

/// What an ELF core file (x86-64, 64-bit little-endian: the kernel's or `gcore`'s) says, read
/// from its bytes: its loadable segments and the notes about the process (threads and their
/// registers, the command, the mapped files, the auxiliary vector). Pure: it reads the bytes it
/// is given and checks every offset against their count, so a damaged file is a failure, never
/// a crash.
///
/// ```swift
/// let layout = try CoreFileLayout(parsing: coreBytes, name: "core.4242")
/// print(layout.loads.count, layout.threads.map(\.threadID), layout.processInfo?.fileName ?? "?")
/// ```
/// ```text
/// 31 [4242, 4243, 4244, 4245] fixture
/// ```
struct CoreFileLayout {
  /// A `PT_LOAD` program header: `memorySize` bytes at `virtualAddress`, the first `fileSize` of
  /// them in the file at `fileOffset` (none when the kernel left them out).
  struct LoadSegment: Equatable {
    var virtualAddress: UInt64
    var memorySize: UInt64
    var fileOffset: UInt64
    var fileSize: UInt64
    /// `PF_R` (4), `PF_W` (2), `PF_X` (1).
    var flags: UInt32
  }

  /// An entry of `NT_FILE`: the file mapped at `start..<end`, from `fileOffset` bytes in.
  struct FileMapping: Equatable {
    var start: UInt64
    var end: UInt64
    var fileOffset: UInt64
    var path: String
  }

  /// An `NT_PRSTATUS` note: a thread and its `user_regs_struct`.
  struct ThreadStatus: Equatable {
    var threadID: Int32
    var registers: [UInt]
  }

  /// `NT_PRPSINFO`: the process's id, short name and the start of its command line.
  struct ProcessInfo: Equatable {
    var processID: Int32
    var fileName: String
    var arguments: String
  }

  private(set) var loads: [LoadSegment] = []
  private(set) var threads: [ThreadStatus] = []
  private(set) var fileMappings: [FileMapping] = []
  private(set) var processInfo: ProcessInfo?
  /// `NT_AUXV`'s pairs: type (`AT_ENTRY` is 9, `AT_EXECFN` 31), value.
  private(set) var auxiliaryVector: [(type: UInt64, value: UInt64)] = []
  /// Notes that could not be read, in plain words.
  private(set) var diagnostics: [String] = []

  static let elfHeaderSize = 64
  static let programHeaderSize = 56
  static let amd64Machine: UInt16 = 62
  static let addressSpaceLimit: UInt64 = 1 << 57
  static let auxiliaryEntry: UInt64 = 9
  static let auxiliaryExecutableFileName: UInt64 = 31

  /// Reads the core file `name` (named in failures) from `bytes`.
  init(parsing bytes: UnsafeRawBufferPointer, name: String) throws(ProcessImageFailure) {
    try Self.checkHeader(bytes, name: name)
    let reader = ByteReader(bytes: bytes)
    var programHeaderCount = UInt64(reader.u16(56))
    let programHeaderOffset = reader.u64(32)
    if programHeaderCount == 0xffff {
      // PN_XNUM: too many for the header; the count is in section header 0's sh_info.
      let sectionHeaderOffset = reader.u64(40)
      guard sectionHeaderOffset <= UInt64(bytes.count), UInt64(bytes.count) - sectionHeaderOffset >= 64 else {
        throw .badCore(name, .truncated, "truncated: its section header 0, which counts its program headers, is past the end of the file")
      }
      programHeaderCount = UInt64(reader.u32(Int(sectionHeaderOffset) + 44))
    }
    guard UInt64(reader.u16(54)) == UInt64(Self.programHeaderSize) || programHeaderCount == 0 else {
      throw .badCore(name, .notACoreFile, "not an ELF core file of this machine (program headers of \(reader.u16(54)) bytes, not 56)")
    }
    let headersEnd = programHeaderOffset.addingReportingOverflow(programHeaderCount * UInt64(Self.programHeaderSize))
    guard !headersEnd.overflow, headersEnd.partialValue <= UInt64(bytes.count) else {
      throw .badCore(
        name, .truncated,
        "truncated: its \(programHeaderCount) program headers at offset \(hex(programHeaderOffset)) run past the end of the file "
          + "(size \(hex(UInt64(bytes.count))))")
    }
    for index in 0..<Int(programHeaderCount) {
      let header = Int(programHeaderOffset) + index * Self.programHeaderSize
      let type = reader.u32(header)
      let offset = reader.u64(header + 8)
      let fileSize = reader.u64(header + 32)
      guard type == 1 || type == 4 else { continue }  // PT_LOAD, PT_NOTE
      let end = offset.addingReportingOverflow(fileSize)
      guard !end.overflow, end.partialValue <= UInt64(bytes.count) else {
        throw .badCore(
          name, .truncated,
          "truncated: program header \(index) points past the end of the file (offset \(hex(offset)), size \(hex(fileSize)), "
            + "file size \(hex(UInt64(bytes.count))))")
      }
      if type == 1 {
        // An x86-64 address space ends below 2^57; a range past it (or wrapping) is corrupt.
        let memorySize = reader.u64(header + 40)
        let virtualEnd = reader.u64(header + 16).addingReportingOverflow(memorySize)
        guard !virtualEnd.overflow, memorySize <= Self.addressSpaceLimit else {
          diagnostics.append(
            "program header \(index): its range \(hex(reader.u64(header + 16))) + \(hex(memorySize)) is not an address range; left out")
          continue
        }
        loads.append(
          LoadSegment(
            virtualAddress: reader.u64(header + 16), memorySize: reader.u64(header + 40), fileOffset: offset, fileSize: fileSize,
            flags: reader.u32(header + 4)))
      } else {
        readNotes(ByteReader(bytes: UnsafeRawBufferPointer(rebasing: bytes[Int(offset)..<Int(end.partialValue)])), header: index)
      }
    }
  }

  /// Fails unless `bytes` start with the header of a 64-bit little-endian x86-64 ELF core.
  private static func checkHeader(_ bytes: UnsafeRawBufferPointer, name: String) throws(ProcessImageFailure) {
    let magic: [UInt8] = [0x7f, 0x45, 0x4c, 0x46]
    guard bytes.count >= 4, Array(bytes.prefix(4)) == magic else {
      throw .badCore(name, .notACoreFile, bytes.isEmpty ? "not an ELF core file (it is empty)" : "not an ELF core file (no ELF magic)")
    }
    guard bytes.count >= elfHeaderSize else {
      throw .badCore(name, .truncated, "truncated: \(bytes.count) bytes, shorter than an ELF header (64)")
    }
    guard bytes[4] == 2 else { throw .badCore(name, .notACoreFile, "not an ELF core file of this machine (a 32-bit ELF file)") }
    guard bytes[5] == 1 else { throw .badCore(name, .notACoreFile, "not an ELF core file of this machine (a big-endian ELF file)") }
    let reader = ByteReader(bytes: bytes)
    let type = reader.u16(16)
    guard type == 4 else {
      let names: [UInt16: String] = [0: "NONE", 1: "REL", 2: "EXEC", 3: "DYN"]
      throw .badCore(name, .notACoreFile, "not an ELF core file (ELF type is \(names[type] ?? String(type)))")
    }
    guard reader.u16(18) == amd64Machine else {
      throw .badCore(name, .notACoreFile, "not a core file of an x86-64 process (ELF machine \(reader.u16(18)))")
    }
  }

  /// Reads the notes of the `PT_NOTE` segment of program header `header`: 4-byte aligned
  /// entries of name size, descriptor size, type, name, descriptor.
  private mutating func readNotes(_ notes: ByteReader, header: Int) {
    var offset = 0
    while offset + 12 <= notes.count {
      let nameSize = Int(notes.u32(offset))
      let descriptorSize = Int(notes.u32(offset + 4))
      let type = notes.u32(offset + 8)
      let name = offset + 12
      let descriptor = name + Self.alignedTo4(nameSize)
      let next = descriptor + Self.alignedTo4(descriptorSize)
      guard nameSize <= notes.count, descriptorSize <= notes.count, next <= notes.count else {
        diagnostics.append("a note in program header \(header) runs past the end of its segment; the notes after it are not read")
        return
      }
      let owner = notes.string(name, maximumCount: nameSize)
      let body = notes.slice(descriptor, count: descriptorSize)
      if owner == "CORE" { readCoreNote(type: type, body) }
      offset = next
    }
  }

  private mutating func readCoreNote(type: UInt32, _ body: ByteReader) {
    switch type {
    case 1:  // NT_PRSTATUS: pr_pid at 32, pr_reg (27 words) at 112
      guard body.count >= 112 + 27 * 8 else { return diagnostics.append("a thread's status note (NT_PRSTATUS) is too short; left out") }
      threads.append(ThreadStatus(threadID: Int32(bitPattern: body.u32(32)), registers: (0..<27).map { UInt(body.u64(112 + $0 * 8)) }))
    case 3:  // NT_PRPSINFO: pr_pid at 24, pr_fname[16] at 40, pr_psargs[80] at 56
      guard body.count >= 136 else { return diagnostics.append("the process's information note (NT_PRPSINFO) is too short; left out") }
      processInfo = ProcessInfo(
        processID: Int32(bitPattern: body.u32(24)), fileName: body.string(40, maximumCount: 16),
        arguments: body.string(56, maximumCount: 80))
    case 6:  // NT_AUXV
      auxiliaryVector = stride(from: 0, to: body.count - 15, by: 16).map { (body.u64($0), body.u64($0 + 8)) }
    case 0x4649_4c45:  // NT_FILE: count, page size, count × (start, end, page offset), count paths
      readFileNote(body)
    default: break
    }
  }

  private mutating func readFileNote(_ body: ByteReader) {
    guard body.count >= 16 else { return diagnostics.append("the mapped files' note (NT_FILE) is too short; left out") }
    let count = body.u64(0)
    let pageSize = body.u64(8)
    guard count <= UInt64(body.count - 16) / 24 else {
      return diagnostics.append("the mapped files' note (NT_FILE) counts more files than it holds; left out")
    }
    var pathOffset = 16 + Int(count) * 24
    for index in 0..<Int(count) {
      let entry = 16 + index * 24
      let pageOffset = body.u64(entry + 16).multipliedReportingOverflow(by: pageSize)
      guard let length = body.lengthOfString(at: pathOffset), !pageOffset.overflow else {
        return diagnostics.append("the mapped files' note (NT_FILE) ends in the middle of its paths; the last ones are left out")
      }
      let path = body.string(pathOffset, maximumCount: length)
      pathOffset += length + 1
      let (start, end) = (body.u64(entry), body.u64(entry + 8))
      guard start < end, end <= Self.addressSpaceLimit, pageOffset.partialValue <= Self.addressSpaceLimit else {
        diagnostics.append(
          "the mapped files' note (NT_FILE) gives \(path) the range \(hex(start))-\(hex(end)) at \(hex(pageOffset.partialValue)); left out")
        continue
      }
      fileMappings.append(FileMapping(start: start, end: end, fileOffset: pageOffset.partialValue, path: path))
    }
  }

  private static func alignedTo4(_ value: Int) -> Int { (value + 3) & ~3 }

  /// The GNU build id of the ELF image whose first bytes (its ELF header, program headers and,
  /// usually in the first page, its notes) are `bytes`, as mapped from file offset 0; empty when
  /// they do not hold one.
  static func buildID(ofImageStart bytes: UnsafeRawBufferPointer) -> [UInt8] {
    let reader = ByteReader(bytes: bytes)
    guard bytes.count >= elfHeaderSize, Array(bytes.prefix(4)) == [0x7f, 0x45, 0x4c, 0x46], bytes[4] == 2, bytes[5] == 1 else {
      return []
    }
    let headers = reader.u64(32)
    let count = UInt64(reader.u16(56))
    guard reader.u16(54) == UInt16(programHeaderSize), headers <= UInt64(bytes.count),
      count <= (UInt64(bytes.count) - headers) / UInt64(programHeaderSize)
    else { return [] }
    for index in 0..<Int(count) {
      let header = Int(headers) + index * programHeaderSize
      guard reader.u32(header) == 4 else { continue }  // PT_NOTE
      let offset = reader.u64(header + 8)
      let size = reader.u64(header + 32)
      guard offset <= UInt64(bytes.count), size <= UInt64(bytes.count) - offset else { continue }
      var buildID = [UInt8](repeating: 0, count: Int(CLEAK_BUILD_ID_CAPACITY))
      let length = buildID.withUnsafeMutableBytes { id in
        cleak_build_id_in_notes(
          bytes.baseAddress! + Int(offset), Int(size), Int(reader.u64(header + 48)), id.baseAddress!.assumingMemoryBound(to: UInt8.self),
          id.count)
      }
      if length > 0 { return Array(buildID.prefix(length)) }
    }
    return []
  }
}

/// `0x` and `value` in hex.
func hex(_ value: UInt64) -> String { "0x" + String(value, radix: 16) }
