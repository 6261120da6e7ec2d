import CLeakRuntime
import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

/// Turns code addresses of this process into function names and source locations.
///
/// Names come from the symbol table through libdw and are demangled with the Swift runtime's
/// demangler; file and line come from DWARF when the binary has debug information (SwiftPM
/// builds do, in debug and release). Results are cached per address, so repeated lookups cost
/// a dictionary access.
///
/// ```swift
/// Symbolicator.shared.frame(at: pc)
/// ```
/// ```text
/// closure #1 in MyApp.Feed.load() (Feed.swift:31)
/// ```
public final class Symbolicator: Sendable {
  /// The process-wide symbolicator.
  public static let shared = Symbolicator()

  private let cache = Locked<[UInt: [StackFrame]]>([:], protectedAcrossFork: true)
  private let names = Locked<[UInt: String?]>([:], protectedAcrossFork: true)
  private let closureNames = Locked<[UInt: String?]>([:], protectedAcrossFork: true)
  private let symbols = Locked<[UInt: String?]>([:], protectedAcrossFork: true)

  /// The demangled function name at `pc`, without looking up its source location (cheaper than
  /// ``frame(at:)``).
  public func name(at pc: UInt) -> String? {
    if let cached = names.withLock({ $0[pc] }) { return cached }
    let name = symbol(at: pc).map(Self.demangle)
    names.withLock { $0[pc] = name }
    return name
  }

  /// The symbol of the function at `pc` as the symbol table has it: mangled, for Swift code
  /// (`$s5MyApp4FeedC4loadyyF`).
  public func symbol(at pc: UInt) -> String? {
    if let cached = symbols.withLock({ $0[pc] }) { return cached }
    var symbol: UnsafeMutablePointer<CChar>?
    var line: Int32 = 0
    var column: Int32 = 0
    _ = cleak_symbolize(pc, &symbol, nil, &line, &column)
    defer { free(symbol) }
    let name = symbol.map { String(cString: $0) }
    symbols.withLock { $0[pc] = name }
    return name
  }

  /// The name of the closure whose code starts at `pc`, as people read it (``closureName(_:)``),
  /// cached per address: every context of a closure has the same name.
  public func closureName(at pc: UInt) -> String? {
    if let cached = closureNames.withLock({ $0[pc] }) { return cached }
    let name = name(at: pc).map(Self.closureName)
    closureNames.withLock { $0[pc] = name }
    return name
  }

  /// The symbolized frame of the function that holds the code address `pc` (the outermost of
  /// ``frames(at:)``: for inlined code, its line is the call's); the symbol is `nil` when the
  /// address is in no known image.
  public func frame(at pc: UInt) -> StackFrame {
    frames(at: pc).last ?? StackFrame(pc: UInt64(pc))
  }

  /// The most functions one address is symbolized as: the inline chains of optimized Swift are a
  /// few deep (an initializer inlined into an allocating initializer inlined into its caller).
  private static let maximumInlineDepth = 32

  /// The frames of the code address `pc`, innermost first: each function inlined at `pc`
  /// (`StackFrame.inlined`), then the function that holds it. Code that was not inlined is one
  /// frame.
  ///
  /// ```text
  /// main.Owner.__allocating_init(Swift.String) -> main.Owner (held.swift:8)   inlined
  /// main.plant() -> () (held.swift:16)
  /// ```
  public func frames(at pc: UInt) -> [StackFrame] {
    if let cached = cache.withLock({ $0[pc] }) { return cached }
    var symbolized = [cleak_symbolized_frame](repeating: cleak_symbolized_frame(), count: Self.maximumInlineDepth)
    let count = Int(cleak_symbolize_frames(pc, &symbolized, Int32(symbolized.count)))
    defer { cleak_symbolized_frames_free(&symbolized, Int32(count)) }
    let frames = symbolized[..<count].map { frame in
      StackFrame(
        pc: UInt64(pc),
        symbol: frame.symbol.map { Self.demangle(String(cString: $0)) },
        file: frame.file.map { String(cString: $0) },
        line: frame.line > 0 ? Int(frame.line) : nil,
        column: frame.column > 0 ? Int(frame.column) : nil,
        inlined: frame.inlined != 0)
    }
    let result = frames.isEmpty ? [StackFrame(pc: UInt64(pc))] : frames
    cache.withLock { $0[pc] = result }
    names.withLock { $0[pc] = result.last?.symbol }
    return result
  }

  /// The frames of a call stack recorded as return addresses, innermost first: each is looked up
  /// at the call before it (a return address points after the call, which in optimized code can
  /// be the next line's code) and keeps its own `pc`; an address with inlined code is several
  /// frames (``frames(at:)``).
  public func frames(ofReturnAddresses returnAddresses: [UInt]) -> [StackFrame] {
    returnAddresses.flatMap { pc in
      frames(at: pc - 1).map { frame in
        var frame = frame
        frame.pc = UInt64(pc)
        return frame
      }
    }
  }

  /// The variable whose storage holds the data address `address`, as people write it: a global
  /// `App.registry`, a static `App.Cache.shared`, or a thread-local variable of the calling
  /// thread (C's `_Thread_local`), with `+offset` when the address is inside it (a field of a
  /// global struct, an element of a tuple). `nil` when no symbol covers it.
  public func variableName(at address: UInt) -> String? {
    var symbol: UnsafeMutablePointer<CChar>?
    var offset: UInt = 0
    guard cleak_data_symbol(address, &symbol, &offset) != 0 || cleak_thread_local_symbol(address, &symbol, &offset) != 0,
      let symbol
    else { return nil }
    defer { free(symbol) }
    var name = Substring(Self.demangle(String(cString: symbol)))
    if name.hasPrefix("static ") { name = name.dropFirst("static ".count) }
    if let type = name.firstRange(of: " : ") { name = name[..<type.lowerBound] }
    return offset == 0 ? String(name) : "\(name)+\(offset)"
  }

  /// The demangled form of a Swift symbol; other symbols are returned unchanged.
  public static func demangle(_ symbol: String) -> String {
    guard symbol.hasPrefix("$s") || symbol.hasPrefix("_T") || symbol.hasPrefix("$S") else { return symbol }
    let demangled: String? = symbol.withCString { pointer in
      guard let result = cleak_demangle(pointer, strlen(pointer)) else { return nil }
      defer { free(result) }
      return String(cString: result)
    }
    return demangled ?? symbol
  }

  /// A closure's name as people read it (`DemangledName.closureName`): `closure #1 in
  /// MyApp.Feed.load()`, without the closure's own signature, the enclosing function's result
  /// type or thunk prefixes.
  ///
  /// `"partial apply forwarder for closure #1 () -> () in MyApp.Feed.load() -> ()"` becomes
  /// `"closure #1 in MyApp.Feed.load()"`.
  public static func closureName(_ demangled: String) -> String {
    DemangledName(demangled).closureName
  }
}
