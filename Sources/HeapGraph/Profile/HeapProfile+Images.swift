extension HeapProfile.Image {
  /// The executable mappings of a process as its `/proc/PID/maps` lists them (`text`): each
  /// mapping of a file with execute permission, the executable's (the file at `executable`)
  /// first, then the others by address. Lines that are not mappings are skipped.
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
    var images: [Self] = []
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
      guard fields.count == 6, fields[1].contains("x") else { continue }
      let path = fields[5].drop { $0 == " " }
      guard path.hasPrefix("/") else { continue }
      let range = fields[0].split(separator: "-")
      guard range.count == 2, let start = UInt64(range[0], radix: 16), let limit = UInt64(range[1], radix: 16),
        let offset = UInt64(fields[2], radix: 16), start < limit
      else { continue }
      images.append(Self(start: start, limit: limit, fileOffset: offset, path: String(path)))
    }
    let isExecutable = { (image: Self) in image.path == executable }
    return images.filter(isExecutable) + images.filter { !isExecutable($0) }.sorted { $0.start < $1.start }
  }
}
