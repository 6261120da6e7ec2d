import CProcessImage

/// The memory an image under construction has mapped (copies, mapped files): unmapped when it
/// goes away, unless ``handOver()`` gave it to the finished image first. A capture or a core
/// read that fails part-way so leaves nothing mapped.
///
/// ```swift
/// let owned = OwnedMappings()
/// let copy = try owned.anonymous(count: 4096)
/// return ProcessImage(..., ownedMappings: owned.handOver())
/// ```
final class OwnedMappings {
  private var mappings: [UnsafeRawBufferPointer] = []

  deinit {
    for mapping in mappings { cpi_unmap(mapping.baseAddress, mapping.count) }
  }

  /// `count` bytes of new anonymous memory, readable and writable, or `nil` when none could be
  /// mapped; `prefaulted`, with every page allocated already.
  func anonymous(count: Int, prefaulted: Bool = false) -> UnsafeMutableRawBufferPointer? {
    guard count > 0, let start = cpi_map_anonymous(count, prefaulted ? 1 : 0) else { return nil }
    mappings.append(UnsafeRawBufferPointer(start: start, count: count))
    return UnsafeMutableRawBufferPointer(start: start, count: count)
  }

  /// `count` bytes of the file open as `descriptor` from `offset` (a multiple of the page size),
  /// mapped read-only, or `nil`.
  func file(_ descriptor: Int32, count: Int, offset: UInt64) -> UnsafeRawBufferPointer? {
    guard count > 0, let start = cpi_map_file(descriptor, count, offset) else { return nil }
    let mapping = UnsafeRawBufferPointer(start: start, count: count)
    mappings.append(mapping)
    return mapping
  }

  /// Unmaps the pages of `mapping` (one this made) from its first `count` bytes, rounded up to a
  /// page, to its end.
  func shrink(_ mapping: UnsafeMutableRawBufferPointer, to count: Int) {
    let page = Int(SystemFiles.pageSize)
    let kept = (count + page - 1) / page * page
    guard kept < mapping.count, let index = mappings.firstIndex(where: { $0.baseAddress == UnsafeRawPointer(mapping.baseAddress) })
    else { return }
    cpi_unmap(mapping.baseAddress! + kept, mapping.count - kept)
    mappings[index] = UnsafeRawBufferPointer(start: mapping.baseAddress, count: kept)
    if kept == 0 { mappings.remove(at: index) }
  }

  /// The mappings, now the caller's to unmap.
  func handOver() -> [UnsafeRawBufferPointer] {
    defer { mappings = [] }
    return mappings
  }
}
