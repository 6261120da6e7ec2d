import CLeakRuntime

#if canImport(Glibc)
  import Glibc
#endif

/// The address of a symbol of the process a capture reads: this process's, through the dynamic
/// loader (the executable's own first when the Swift runtime is linked into it: its runtime's
/// symbols are local ones, and the shared copy the agent runs on is not the program's), or, once a
/// memory image is installed (``MemoryImage/install()``), the image's, from the symbol tables of
/// its images' files. The one place capture code looks a symbol up.
///
/// ```swift
/// let mainQueue = ProcessSymbols.address(of: "_dispatch_main_q")
/// ```
enum ProcessSymbols {
  /// The address of `name`, or `nil` when no image defines it.
  static func address(of name: String) -> UInt? {
    if cleak_reads_memory_image() { return MemoryImage.installedSymbols.address(of: name) }
    if cleak_executable_runtime_is_hooked() {
      let address = cleak_executable_symbol(name)
      if address != 0 { return address }
    }
    return dlsym(nil, name).map { UInt(bitPattern: $0) }
  }
}
