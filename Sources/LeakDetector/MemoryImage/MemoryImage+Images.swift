import CLeakRuntime
import HeapGraph

extension MemoryImage {
  /// A loaded image (the program or a shared library): the address range of its mappings (with
  /// the anonymous part of its `.bss` after them), its file here, and its load bias.
  struct LoadedImage {
    var path: String
    var localFile: String?
    var start: UInt
    var end: UInt
    var bias: UInt
    /// The ranges of its writable mappings: its global data.
    var writable: [(start: UInt, end: UInt)]

    /// Whether it is the Swift runtime's own library (in a program built with the runtime
    /// linked in, the runtime is part of the program, which does not count).
    var isSwiftRuntime: Bool { (path.split(separator: "/").last ?? "").hasPrefix("libswift") }
  }

  /// The images `segments` map, in address order: the mappings of one file, from the one at
  /// file offset 0, grouped. An image's global data is what its file's program headers say it
  /// is, `.bss` included, where the file can be read; else its writable mappings.
  /// The page size of x86-64 and of most AArch64 systems.
  static let pageSize: UInt = 4096

  static func loadedImages(of segments: [Segment]) -> [LoadedImage] {
    mappedImages(of: segments).map { image in
      var image = image
      var extent = cleak_memory_range()
      if let file = image.localFile, cleak_elf_writable_extent(file, image.bias, &extent) {
        // Mapped by whole pages: the last one's rest is the image's too.
        let end = (extent.end + Self.pageSize - 1) & ~(Self.pageSize - 1)
        image.writable = [(extent.start, end)]
        image.end = max(image.end, end)
      }
      return image
    }
  }

  /// ``loadedImages(of:)`` as the mappings alone tell them.
  private static func mappedImages(of segments: [Segment]) -> [LoadedImage] {
    var images: [LoadedImage] = []
    var index: [String: Int] = [:]
    for (position, segment) in segments.enumerated() where segment.mapsFile {
      let path = segment.path!
      if let known = index[path] {
        images[known].end = max(images[known].end, segment.end)
        if segment.isWritable { images[known].writable.append((segment.start, segment.end)) }
        // The part of .bss past the file's last page is anonymous memory right after it.
        if position + 1 < segments.count, segments[position + 1].path == nil, segments[position + 1].start == segment.end,
          segments[position + 1].isWritable, segment.isWritable
        {
          let bss = segments[position + 1]
          images[known].end = bss.end
          images[known].writable.append((bss.start, bss.end))
        }
        continue
      }
      guard segment.fileOffset == 0 else { continue }
      var bias: UInt = 0
      if let file = segment.localFile, !cleak_elf_load_bias(file, segment.start, &bias) { bias = segment.start }
      index[path] = images.count
      images.append(
        LoadedImage(
          path: path, localFile: segment.localFile, start: segment.start, end: segment.end, bias: bias,
          writable: segment.isWritable ? [(segment.start, segment.end)] : []))
    }
    return images
  }
}
