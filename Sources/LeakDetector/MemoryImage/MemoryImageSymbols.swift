import CLeakRuntime

/// The symbols of a memory image's loaded images, from their files' symbol tables (the dynamic
/// one and the full one, where it was kept), by name: read once, on the first lookup.
///
/// ```swift
/// MemoryImage.installedSymbols.address(of: "_dispatch_main_q")  // 0x7f3a1c2e4080
/// ```
final class MemoryImageSymbols: Sendable {
  private let images: [(file: String, bias: UInt)]
  private let table = Locked<[String: UInt]?>(nil, protectedAcrossFork: true)

  init(images: [(file: String, bias: UInt)]) {
    self.images = images
  }

  /// The address of `name` in the image, or `nil` when no image defines it. The first image
  /// that defines a name wins, as the dynamic loader's search order has the program first.
  func address(of name: String) -> UInt? {
    table.withLock { table in
      if table == nil { table = Self.read(images) }
      return table?[name]
    }
  }

  private static func read(_ images: [(file: String, bias: UInt)]) -> [String: UInt] {
    final class Collector {
      var symbols: [String: UInt] = [:]
    }
    let collector = Collector()
    for image in images {
      withExtendedLifetime(collector) {
        _ = cleak_elf_for_each_symbol(
          image.file, image.bias, false,
          { name, address, _, context in
            guard let name, let context else { return }
            let collector = Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue()
            let key = String(cString: name)
            if collector.symbols[key] == nil { collector.symbols[key] = address }
          }, Unmanaged.passUnretained(collector).toOpaque())
      }
    }
    return collector.symbols
  }
}
