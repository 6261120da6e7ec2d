/// One mapping of a process's address space: one line of `/proc/PID/maps`, parsed.
///
/// This is the one reader of that text on the Swift side (the CLI, the capture's root regions
/// and heap profiles use it); it takes the text, never the file, so it stays pure. C code that
/// must run without Swift (a capture child, the census process) reads the file with
/// `cleak_for_each_mapping_in` in `CLeakRuntime/ReadableMemory.c`.
///
/// A line is `start-end perms offset dev inode` and, after spaces that pad it to a column, the
/// pathname: a file (`/usr/lib/libc.so.6`, spaces and all, with ` (deleted)` after it when the
/// file was removed), a pseudo-path (`[stack]`, `[heap]`, `[vdso]`, `[anon:name]`), or nothing
/// for anonymous memory. The kernel writes a newline in a path as `\012`, so a line never
/// breaks inside one.
///
/// ```swift
/// let mapping = ProcessMapping(mapsLine: "7f3a10000000-7f3a10200000 r-xp 00040000 08:01 99   /opt/My App/libA.so (deleted)")!
/// print(mapping.filePath!, mapping.isDeletedFile, mapping.isExecutable, String(mapping.offset, radix: 16))
/// ```
/// ```text
/// /opt/My App/libA.so true true 40000
/// ```
package struct ProcessMapping: Sendable, Hashable {
  /// The first address of the mapping.
  package var start: UInt64
  /// The address after its last byte.
  package var end: UInt64
  /// The four permission letters as listed, `r-xp`: read, write, execute, then `p` (private,
  /// copy-on-write) or `s` (shared).
  package var permissions: String
  /// Where in the file the mapping starts (0 for anonymous memory).
  package var offset: UInt64
  /// The file's device, `major:minor` in hex as listed (`08:01`; `00:00` for anonymous memory).
  package var device: String
  /// The file's inode (0 for anonymous memory).
  package var inode: UInt64
  /// The pathname as listed, the kernel's text: a path with ` (deleted)` after it when the file
  /// was removed, a pseudo-path such as `[stack]`, or empty for anonymous memory.
  package var pathname: String

  package init(
    start: UInt64, end: UInt64, permissions: String, offset: UInt64 = 0, device: String = "00:00", inode: UInt64 = 0,
    pathname: String = ""
  ) {
    self.start = start
    self.end = end
    self.permissions = permissions
    self.offset = offset
    self.device = device
    self.inode = inode
    self.pathname = pathname
  }

  /// The mapping one line of `/proc/PID/maps` describes (without its newline), or `nil` when
  /// the line is not one: fields missing or not numbers, permissions not four letters, or an
  /// end not after the start.
  package init?(mapsLine line: Substring) {
    let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
    guard fields.count >= 5 else { return nil }
    let bounds = fields[0].split(separator: "-", omittingEmptySubsequences: false)
    guard bounds.count == 2, let start = UInt64(bounds[0], radix: 16), let end = UInt64(bounds[1], radix: 16), start < end,
      Self.arePermissions(fields[1]), let offset = UInt64(fields[2], radix: 16), fields[3].contains(":"),
      let inode = UInt64(fields[4])
    else { return nil }
    // The padding before the pathname is spaces; a pathname never starts with one.
    let pathname = fields.count == 6 ? fields[5].drop { $0 == " " } : ""
    self.init(
      start: start, end: end, permissions: String(fields[1]), offset: offset, device: String(fields[3]), inode: inode,
      pathname: String(pathname))
  }

  /// ``init(mapsLine:)`` of a `String`.
  package init?(mapsLine line: String) {
    self.init(mapsLine: line[...])
  }

  /// The mappings the text of a `/proc/PID/maps` file lists, in its order (ascending addresses);
  /// lines that are not mappings are skipped.
  package static func mappings(inMaps text: String) -> [ProcessMapping] {
    text.split(separator: "\n").compactMap { ProcessMapping(mapsLine: $0) }
  }

  /// The suffix the kernel puts after the path of a file that was removed while mapped.
  package static let deletedSuffix = " (deleted)"

  /// The path of the mapped file, without ` (deleted)`; `nil` for anonymous memory and
  /// pseudo-paths (`[stack]`).
  package var filePath: String? {
    guard pathname.hasPrefix("/") else { return nil }
    return isDeletedFile ? String(pathname.dropLast(Self.deletedSuffix.count)) : pathname
  }

  /// Whether the mapping is of a file that was removed (its pathname ends in ` (deleted)`).
  package var isDeletedFile: Bool {
    pathname.hasPrefix("/") && pathname.hasSuffix(Self.deletedSuffix)
  }

  /// Whether nothing is named for the mapping: anonymous memory (not `[heap]` or `[stack]`).
  package var isAnonymous: Bool { pathname.isEmpty }

  /// Whether the mapping may be read (`r`).
  package var isReadable: Bool { permissions.utf8.first == UInt8(ascii: "r") }
  /// Whether the mapping may be written (`w`).
  package var isWritable: Bool { permissions.utf8.dropFirst(1).first == UInt8(ascii: "w") }
  /// Whether the mapping holds code that may run (`x`).
  package var isExecutable: Bool { permissions.utf8.dropFirst(2).first == UInt8(ascii: "x") }
  /// Whether the mapping is shared with other processes (`s`) rather than private (`p`).
  package var isShared: Bool { permissions.utf8.dropFirst(3).first == UInt8(ascii: "s") }

  /// Whether `field` is four permission letters: `r` or `-`, `w` or `-`, `x` or `-`, `p` or `s`.
  private static func arePermissions(_ field: Substring) -> Bool {
    let letters = Array(field.utf8)
    return letters.count == 4 && (letters[0] == UInt8(ascii: "r") || letters[0] == UInt8(ascii: "-"))
      && (letters[1] == UInt8(ascii: "w") || letters[1] == UInt8(ascii: "-"))
      && (letters[2] == UInt8(ascii: "x") || letters[2] == UInt8(ascii: "-"))
      && (letters[3] == UInt8(ascii: "p") || letters[3] == UInt8(ascii: "s"))
  }
}
