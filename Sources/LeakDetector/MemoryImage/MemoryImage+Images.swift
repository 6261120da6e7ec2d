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
    var isSwiftRuntime: Bool { fileName.hasPrefix("libswift") }

    /// The name of its file, without its directory.
    var fileName: String { path.split(separator: "/").last.map(String.init) ?? path }

    /// Whether it is this tool's agent (in a process that runs under `leak-detector run`), whose
    /// objects are the tool's, not the program's.
    var isLeakDetector: Bool { fileName.hasPrefix("libLeakDetector") }
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

  /// ``loadedImages(of:)`` as the mappings alone tell them: a run of mappings of one file, in
  /// address order, that starts at its offset 0 and has code (the dynamic loader maps an image
  /// so; a file mapped to be read, such as a debug file a symbolizer opened, has no code), with
  /// the anonymous memory right after its last writable mapping (the part of `.bss` past the
  /// file's last page).
  private static func mappedImages(of segments: [Segment]) -> [LoadedImage] {
    var images: [LoadedImage] = []
    var position = 0
    while position < segments.count {
      let first = segments[position]
      guard first.mapsFile, first.fileOffset == 0, let path = first.path else {
        position += 1
        continue
      }
      var run = [first]
      var next = position + 1
      while next < segments.count, segments[next].path == path, segments[next].fileOffset != 0 {
        run.append(segments[next])
        next += 1
      }
      if let last = run.last, last.isWritable, next < segments.count, segments[next].path == nil, segments[next].start == last.end,
        segments[next].isWritable
      {
        run.append(segments[next])
        next += 1
      }
      position = next
      guard run.contains(where: { $0.isExecutable && $0.path == path }) else { continue }
      var bias: UInt = 0
      if let file = first.localFile, !cleak_elf_load_bias(file, first.start, &bias) { bias = first.start }
      images.append(
        LoadedImage(
          path: path, localFile: first.localFile, start: first.start, end: run.last!.end, bias: bias,
          writable: run.filter(\.isWritable).map { ($0.start, $0.end) }))
    }
    return images
  }
}
