extension HeapProfile.Image {
  /// The executable mappings of a process as its `/proc/PID/maps` lists them (`text`): each
  /// mapping of a file with execute permission, the executable's (the file at `executable`)
  /// first, then the others by address. Lines that are not mappings are skipped; the lines are
  /// read by `ProcessMapping`, and a path is as listed (a removed file's ends in ` (deleted)`).
  ///
  /// ```swift
  /// let images = HeapProfile.Image.executableMappings(
  ///   procMaps: "55d0c1001000-55d0c1009000 r-xp 00001000 08:01 1234  /app/Server\n", executable: "/app/Server")
  /// print(images[0].path, String(images[0].fileOffset, radix: 16))
  /// ```
  /// ```text
  /// /app/Server 1000
  /// ```
  public static func executableMappings(procMaps text: String, executable: String?) -> [Self] {
    let images = ProcessMapping.mappings(inMaps: text).compactMap { mapping -> Self? in
      // The pathname as listed: a removed executable keeps its ` (deleted)` here.
      guard mapping.isExecutable, mapping.pathname.hasPrefix("/") else { return nil }
      return Self(start: mapping.start, limit: mapping.end, fileOffset: mapping.offset, path: mapping.pathname)
    }
    let isExecutable = { (image: Self) in image.path == executable }
    return images.filter(isExecutable) + images.filter { !isExecutable($0) }.sorted { $0.start < $1.start }
  }
}
