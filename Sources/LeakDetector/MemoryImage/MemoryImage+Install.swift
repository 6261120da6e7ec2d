import CLeakRuntime
import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

extension MemoryImage {
  /// The symbols of the installed memory image (none before ``install()``).
  nonisolated(unsafe) static var installedSymbols = MemoryImageSymbols(images: [])

  /// Makes every read of the capture code read this image: its segments, its images (their
  /// reflection metadata, symbols and debug information, from their files), for the rest of this
  /// process's life. Call it once, before anything captures: the capture code's caches (layouts,
  /// names, symbols) are filled from what it reads first. The image's bytes must outlive the process's reads.
  package func install() {
    var ranges = segments.compactMap { segment in
      segment.bytes.map {
        cleak_image_segment(
          start: segment.start, end: segment.end, bytes: $0.assumingMemoryBound(to: UInt8.self), isSparseCopy: segment.isSparseCopy)
      }
    }
    cleak_read_from_memory_image(&ranges, ranges.count)
    let images = loadedImages
    var imageRanges: [cleak_image_range] = []
    let paths = images.map { strdup($0.localFile ?? $0.path) }
    defer { paths.forEach { free($0) } }
    for (image, path) in zip(images, paths) {
      imageRanges.append(
        cleak_image_range(
          start: image.start, end: image.end, isSwiftRuntime: image.isSwiftRuntime, isLeakDetector: image.isLeakDetector,
          listsStandardLibraryClasses: image.isSwiftRuntime && !image.fileName.hasPrefix("libswiftCore."),
          path: image.localFile == nil ? nil : UnsafePointer(path), bias: image.bias))
    }
    cleak_memory_image_set_loaded_images(&imageRanges, imageRanges.count)
    var sections: [cleak_reflection_sections] = []
    for image in images {
      guard let file = image.localFile else { continue }
      var found = cleak_reflection_sections()
      if cleak_elf_reflection_sections(file, image.bias, &found) { sections.append(found) }
    }
    cleak_memory_image_set_reflection_sections(&sections, sections.count)
    Self.installedSymbols = MemoryImageSymbols(images: images.compactMap { image in image.localFile.map { ($0, image.bias) } })
    cleak_memory_image_set_symbols { name in
      guard let name else { return 0 }
      return MemoryImage.installedSymbols.address(of: String(cString: name)) ?? 0
    }
  }
}
