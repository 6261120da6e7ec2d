/// One frame of an allocation stack, symbolized as far as debug information allows.
public struct StackFrame: Sendable, Hashable {
  /// The program counter (return address) in the captured process.
  public var pc: UInt64?
  /// The demangled function name, e.g. `MyApp.Feed.init() -> MyApp.Feed`.
  public var symbol: String?
  /// The source file, e.g. `Feed.swift` (may be a full path).
  public var file: String?
  /// The one-based source line.
  public var line: Int?
  /// The one-based source column.
  public var column: Int?
  /// Whether the function is inlined into the next frame: the compiler copied its code there, so
  /// the next frame has the same `pc` and its line is that of the call.
  ///
  /// One return address of an optimized program is several frames, innermost first:
  ///
  /// ```text
  /// main.Owner.__allocating_init(Swift.String) -> main.Owner (held.swift:8)   inlined
  /// main.plant() -> () (held.swift:16)
  /// ```
  public var inlined: Bool

  /// For a site chosen from a stack whose code was inlined (``Swift/Array/allocationSite``): the
  /// function that holds the code, with the line of the call the site's function was inlined at.
  /// Reports show it after the site (`Owner.init(_:) (held.swift:8), inlined in plant()
  /// (held.swift:16)`); snapshots do not store it (their stacks hold that frame after this one).
  public var inlinedIn: StackFrame? {
    get { inlinedInStorage.first }
    set { inlinedInStorage = newValue.map { [$0] } ?? [] }
  }
  private var inlinedInStorage: [StackFrame] = []

  public init(
    pc: UInt64? = nil, symbol: String? = nil, file: String? = nil, line: Int? = nil, column: Int? = nil, inlined: Bool = false
  ) {
    self.pc = pc
    self.symbol = symbol
    self.file = file
    self.line = line
    self.column = column
    self.inlined = inlined
  }

  /// `"MyApp.Feed.init() (Feed.swift:12)"`, or as much of it as is known (the file without its
  /// directory), then the function it is inlined in, if the frame says
  /// (``inlinedIn``): `"main.Owner.init(_:) (held.swift:8), inlined in main.plant() (held.swift:16)"`.
  public var description: String {
    let text = symbol ?? pc.map { "0x" + String($0, radix: 16) } ?? "???"
    let own = sourceLocation.map { "\(text) (\($0))" } ?? text
    return inlinedIn.map { "\(own), inlined in \($0.description)" } ?? own
  }

  /// Whether the frame's file is the compiler's (`<compiler-generated>`, with or without a
  /// directory): thunks and other code with no source line of its own.
  public var isCompilerGenerated: Bool { file?.hasSuffix("<compiler-generated>") ?? false }

  /// Whether the frame is an entry point of the Swift runtime (`swift_task_create`), or a hook
  /// that stands in for one: the runtime made the object on behalf of the code that called it,
  /// so that call is where the object was made, even where the hook has source lines.
  public var isRuntimeEntryPoint: Bool { symbol?.hasPrefix("swift_") ?? false }

  /// Whether the frame is code people wrote: neither an allocating initializer (the entry
  /// point the compiler makes around `init`, inlined or not depending on optimization) nor
  /// code the compiler made to pass a call on (a thunk, a partial application), nor code without
  /// a source line of its own.
  public var isWrittenCode: Bool {
    guard !isCompilerGenerated, let symbol else { return false }
    return !symbol.containsBytes("__allocating_init") && !DemangledName.namesForwardingCode(symbol)
  }

  /// Whether `other` names the same source line in the same function (program counters aside:
  /// they differ from process to process).
  public func isSameLine(_ other: StackFrame) -> Bool {
    (symbol, file, line) == (other.symbol, other.file, other.line)
  }

  /// `"Feed.swift:12"`: the file without its directory and the line, when the file is known
  /// (code the compiler generated, `<compiler-generated>`, has none).
  public var sourceLocation: String? {
    guard let file, !isCompilerGenerated else { return nil }
    let name = file.split(separator: "/").last.map(String.init) ?? file
    return line.map { "\(name):\($0)" } ?? name
  }
}

extension [StackFrame] {
  /// The frame that best says where an object was allocated: the first with a source file and
  /// line that is not the allocating initializer itself or compiler-generated code; otherwise
  /// the first with a file, otherwise the first. In optimized code the allocating initializer
  /// is inlined into the line that made the object: it is a frame of its own
  /// (``StackFrame/inlined``) with the initializer's declaration line, and is passed over like
  /// the call of a separate one. When the chosen frame is itself inlined, it says the function
  /// that holds its code (``StackFrame/inlinedIn``).
  ///
  /// ```text
  /// [MyApp.Feed.__allocating_init() (Feed.swift), MyApp.makeFeed() (Screen.swift:12)] → MyApp.makeFeed() (Screen.swift:12)
  /// [main.Owner.__allocating_init(_:) (held.swift:8) inlined, main.plant() (held.swift:16)] → main.plant() (held.swift:16)
  /// [main.Tag.__allocating_init() (held.swift:4) inlined, main.Owner.init(_:) (held.swift:9) inlined,
  ///  main.plant() (held.swift:16)] → main.Owner.init(_:) (held.swift:9), inlined in main.plant() (held.swift:16)
  /// ```
  public var allocationSite: StackFrame? {
    let index =
      firstIndex { frame in
        frame.line != nil && frame.file != nil && !frame.isCompilerGenerated && !frame.isRuntimeEntryPoint
          && !(frame.symbol?.containsBytes("__allocating_init") ?? false)
      } ?? firstIndex { $0.file != nil } ?? indices.first
    return index.map(siteFrame(at:))
  }

  /// The frame at `index`, with the function its code is inlined in when it is inlined: the
  /// first frame after it that is not.
  private func siteFrame(at index: Int) -> StackFrame {
    var frame = self[index]
    if frame.inlined, let holder = self[(index + 1)...].first(where: { !$0.inlined }) { frame.inlinedIn = holder }
    return frame
  }
}
