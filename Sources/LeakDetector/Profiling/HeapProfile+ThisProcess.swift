import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

extension HeapProfile {
  /// The profile with what this process knows about its frames' addresses: the executable
  /// mappings they fall in (from `/proc/self/maps`, the executable first) and the mangled symbol
  /// of each frame's function, when the symbol at the address demangles to the frame's name (a
  /// return address is looked up at the call before it, a closure's code address where it is).
  /// For profiles of this process only: its snapshots, its tracker.
  package func describingThisProcess() -> HeapProfile {
    var profile = self
    let maps = (try? FileBytes.read("/proc/self/maps")).map { String(decoding: $0, as: UTF8.self) } ?? ""
    profile.images = HeapProfile.Image.executableMappings(procMaps: maps, executable: Self.executablePath())
    var seen: Set<UInt64> = []
    for site in sites {
      for frame in site.frames ?? [] {
        // The symbol at an address is the function that holds the code, not one inlined there.
        guard let pc = frame.pc, let name = frame.symbol, !frame.inlined, seen.insert(pc).inserted else { continue }
        for address in [UInt(pc) &- 1, UInt(pc)] {
          guard let symbol = Symbolicator.shared.symbol(at: address) else { continue }
          let demangled = Symbolicator.demangle(symbol)
          if demangled == name || Symbolicator.closureName(demangled) == name {
            profile.mangledNames[pc] = symbol
            break
          }
        }
      }
    }
    return profile
  }

  /// Now, in nanoseconds since 1970.
  package static func nowNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
  }

  /// The path of this process's executable.
  private static func executablePath() -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard length > 0 else { return nil }
    return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
