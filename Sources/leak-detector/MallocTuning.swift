#if canImport(Glibc)
  import Glibc
#endif

/// Gives every allocation of 256 KiB or more its own mapping, returned to the system when it is
/// freed (glibc's `mallopt(M_MMAP_THRESHOLD, …)`; nothing elsewhere).
///
/// A snapshot of a million objects lives in arrays of megabytes, allocated and freed phase after
/// phase (file bytes, columns, graph, analysis, report). glibc raises its threshold each time
/// such an array is freed, so the later ones come from the heap and stay resident after they are
/// freed: a fixed threshold took a fifth off the peak memory of `analyze` on such a snapshot.
/// `mallopt` is looked up by name because the C library's module does not export it.
func fixMallocMappingThreshold() {
  #if canImport(Glibc)
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD in <malloc.h>
    guard let symbol = dlsym(nil, "mallopt") else { return }
    _ = unsafeBitCast(symbol, to: Mallopt.self)(mmapThreshold, 256 << 10)
  #endif
}
