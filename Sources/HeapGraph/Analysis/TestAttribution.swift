/// Which test allocated an object, read from its allocation stack: the test function is the
/// outermost frame of the test's own code, just inside the test framework's outermost frames
/// (XCTest's `XCTestCase.invokeTest()` and its async wrappers, the test list SwiftPM generates,
/// Swift Testing's runner and the thunks its `@Test` macro generates), past the framework frames
/// the test's code calls itself (an assertion). Code the test calls (a helper) is inside the test,
/// so it is never taken for it.
///
/// Async code is followed through its logical callers: after an `await`, the concurrency runtime
/// resumes a function, and the allocation stack goes on from it along its callers' resume
/// points (`(1) await resume partial function for AppTests.testGet()`) up to the task's first
/// function, which for a test is the framework's. A stack that still ends in the runtime with no
/// framework frame (a task the test spawned with `Task {}`, whose first function is its closure;
/// or a stack whose async callers could not be read) names a test only in a test process, when its
/// outermost function of the test's own code is async and has the shape of a test: no parameters,
/// in a test module (a module or directory named `…Tests`); a closure names the function it is
/// written in.
///
/// Set-up and tear-down are not tests: an object they allocate names the function with what it is
/// (`AppTests.FeedTests.setUpWithError() (set-up)`, `AppTests.Suite.init() (set-up)`,
/// `AppTests.FeedTests.tearDown() (tear-down)`): it runs for each test of its class or suite.
///
/// ```text
/// [App.Node.__allocating_init(), App.makePair() (Pair.swift:3), AppTests.PairTests.testPair() (PairTests.swift:9),
///  closure #1 in XCTest.test<A>(...), XCTest.XCTestCase.invokeTest() -> ()]  →  AppTests.PairTests.testPair()
/// [App.Node.__allocating_init(), (2) suspend resume partial function for AppTests.Client.get(uri: String) async,
///  (1) await resume partial function for AppTests.RouterTests.testGet() async throws, (1) await resume partial
///  function for closure #1 in XCTest.awaitUsingExpectation(...), completeTaskWithClosure]  →  AppTests.RouterTests.testGet()
/// ```
public enum TestAttribution {
  /// The test function that allocated an object with `frames` (innermost first), or `nil` when
  /// the stack shows none. `inTestProcess` allows the rule for stacks that end in the
  /// concurrency runtime (a test runner's process).
  public static func test(allocating frames: [StackFrame], inTestProcess: Bool) -> String? {
    var kinds = FrameMemo<FrameKind?>()
    return test(allocating: frames, inTestProcess: inTestProcess, kinds: &kinds)
  }

  /// ``test(allocating:inTestProcess:)``, with the kinds of frames already read for other stacks
  /// of the snapshot (a report asks it of every group's stacks, which share most of their frames).
  static func test(allocating frames: [StackFrame], inTestProcess: Bool, kinds: inout FrameMemo<FrameKind?>) -> String? {
    testFrame(allocating: frames, inTestProcess: inTestProcess, kinds: &kinds).map(name(of:))
  }

  /// Whether an object with `frames` (innermost first) was allocated by a test other than the one
  /// named `name` (as Swift Testing names it: `adopt()`, `feed(count:)`) declared in the file
  /// `fileName`: a test running in parallel with it. An object whose stack names no test, or a
  /// set-up or tear-down, is not known to be another test's.
  ///
  /// ```text
  /// [App.Node.__allocating_init(), (1) await resume partial function for AppTests.FeedTests.load() async
  ///  (FeedTests.swift:9), …Testing.Runner…], than ("adopt()", "AdoptTests.swift")  →  true
  /// ```
  public static func isAnotherTest(allocating frames: [StackFrame], than name: String, in fileName: String) -> Bool {
    var kinds = FrameMemo<FrameKind?>()
    guard let frame = testFrame(allocating: frames, inTestProcess: true, kinds: &kinds) else { return false }
    let function = functionName(frame.symbol ?? "")
    guard role(of: function) == nil else { return false }
    let baseName = { (name: Substring) in name.prefix { $0 != "(" }.split(separator: ".").last ?? "" }
    let file = frame.file?.split(separator: "/").last
    return baseName(function[...]) != baseName(name[...]) || (file.map { $0 != fileName } ?? false)
  }

  /// The frame of the test function ``test(allocating:inTestProcess:)`` names.
  private static func testFrame(allocating frames: [StackFrame], inTestProcess: Bool, kinds: inout FrameMemo<FrameKind?>) -> StackFrame? {
    // The test's code may call into the framework and be called back (an assertion's autoclosure
    // in a helper): the test is the candidate below the framework's outermost frames.
    var candidate: StackFrame?
    var found: StackFrame?
    var endsInRuntime = false
    frames: for frame in frames {
      switch kinds.value(for: frame, kind(of:)) {
      case .framework:
        found = candidate ?? found
        candidate = nil
      case .concurrencyRuntime:
        endsInRuntime = true
        break frames
      case .code: candidate = frame
      case .forwarding, nil: continue
      }
    }
    if let found { return found }
    guard inTestProcess, endsInRuntime, let candidate, hasTheShapeOfATest(candidate) else { return nil }
    return candidate
  }

  /// Whether a stack (innermost first) is the test framework's own: it has a framework frame and,
  /// up to where the concurrency runtime runs it, no frame of other code, only forwarding code and
  /// the standard and concurrency libraries (Swift Testing's runner adding the task of another
  /// test, which runs while this one ends). What such a stack makes is not the test's, whichever
  /// generation it falls in.
  ///
  /// ```text
  /// [(3) suspend resume partial function for generic specialization <…> of closure #1 (inout
  ///  Swift.ThrowingTaskGroup<(), Swift.Error>) async throws -> () in static Testing.Runner.(_forEach in _E393…)…]  →  true
  /// ```
  public static func isTestFrameworkCode(_ frames: [StackFrame]) -> Bool {
    var hasFramework = false
    for frame in frames {
      switch kind(of: frame) {
      case .framework: hasFramework = true
      case .concurrencyRuntime: return hasFramework
      case .code: return false
      case .forwarding, nil: continue
      }
    }
    return hasFramework
  }

  /// What a frame of an allocation stack is to the attribution.
  enum FrameKind {
    /// A test framework's (``isFramework(_:)``).
    case framework
    /// The concurrency runtime's, which runs a task: the stack's callers end there.
    case concurrencyRuntime
    /// Code that only passes a call on (``passesCallsOn(_:)``).
    case forwarding
    /// Code people wrote: the test's, a helper's, a library's.
    case code
  }

  /// The kind of `frame`, or `nil` for a frame without a symbol.
  private static func kind(of frame: StackFrame) -> FrameKind? {
    guard let symbol = frame.symbol else { return nil }
    let name = DemangledName(symbol)
    if isFramework(name) { return .framework }
    if isConcurrencyRuntime(symbol) { return .concurrencyRuntime }
    return passesCallsOn(name) ? .forwarding : .code
  }

  /// How a frame the attribution chose is named: its function as people write it
  /// (`DemangledName.function`: no async-resumption prefix, no result type, a closure named by the
  /// function it is written in), with `(set-up)` or `(tear-down)` after a set-up or tear-down.
  static func name(of frame: StackFrame) -> String {
    var function = functionName(frame.symbol ?? "")
    if let testCase = testCaseInitialized(by: function) { function = testCase + xcTestCaseInitializer }
    return role(of: function).map { "\(function) (\($0))" } ?? function
  }

  /// How XCTest's initializer of a test case is named, after its class (reports write it
  /// `FeedTests.init(name:testClosure:)`): XCTest makes one instance of the class for each of its
  /// tests, so what its stored properties' initial values make is set-up, made for each test.
  private static let xcTestCaseInitializer = ".init(name: Swift.String, testClosure: (XCTest.XCTestCase) throws -> ())"

  /// The test case class whose XCTest initializer `function` is
  /// (`AppTests.FeedTests.__allocating_init(name: Swift.String, testClosure: (XCTest.XCTestCase) throws -> ())`
  /// → `AppTests.FeedTests`), or `nil` for another function.
  private static func testCaseInitialized(by function: String) -> Substring? {
    for initializer in [".__allocating_init(name: Swift.String, testClosure: ", ".init(name: Swift.String, testClosure: "] {
      if let range = function.firstRange(of: initializer) { return function[..<range.lowerBound] }
    }
    return nil
  }

  /// The function a frame's symbol names as people write it (`DemangledName.function`): no
  /// async-resumption prefix, no result type (`ProfileTests.actorLeak() async -> ()` →
  /// `ProfileTests.actorLeak()`); a closure in the test (`XCTAssert`'s autoclosure, say) names the
  /// test it is written in.
  static func functionName(_ symbol: String) -> String {
    DemangledName(symbol).function
  }

  /// A name ``name(of:)`` gave, split into the function and its role's suffix (` (set-up)`), so
  /// that a report can write the function its own way and keep the role.
  static func splitRole(_ name: String) -> (function: String, roleSuffix: String) {
    guard let suffix = [" (set-up)", " (tear-down)"].first(where: name.hasSuffix) else { return (name, "") }
    return (String(name.dropLast(suffix.count)), suffix)
  }

  /// `set-up` for XCTest's `setUp()`, `setUpWithError()` (and their class and async forms), the
  /// initializer XCTest makes each test's instance with, and a Swift Testing suite's `init()`; `tear-down` for `tearDown()`, `tearDownWithError()` and a
  /// suite's `deinit`; `nil` for other functions.
  private static func role(of function: String) -> String? {
    let withoutParameters = function.firstIndex(of: "(").map { function[..<$0] } ?? function[...]
    let baseName = withoutParameters.split(separator: ".").last.map(String.init) ?? ""
    if function.hasSuffix(xcTestCaseInitializer) { return "set-up" }
    switch (baseName, function.hasSuffix("()")) {
    case ("setUp", true), ("setUpWithError", true), ("init", true): return "set-up"
    case ("tearDown", true), ("tearDownWithError", true), ("deinit", false): return "tear-down"
    default: return nil
    }
  }

  private static func isFramework(_ name: DemangledName) -> Bool {
    // XCTest's own frames, the test list SwiftPM generates (`__allTests__…`), Swift Testing's
    // frames and the code its `@Test` macro expands to (mangled `…TestfMp_…`), also as parts of
    // async functions and in closures.
    // A test target's extension of the frameworks' types (`(extension in AppTests):XCTest.XCTestCase.waitForFeed()`)
    // is the test's code.
    let symbol = name.text
    let outermostDeclaration = name.contexts.last ?? name.declaration
    if let module = extendingModule(of: outermostDeclaration), module != "XCTest" && module != "Testing" { return false }
    let outermost = qualifiedName(outermostDeclaration)
    return outermost.hasPrefix("XCTest.") || outermost.hasPrefix("Testing.") || symbol.containsBytes(" in XCTest.")
      || symbol.containsBytes(" in Testing.") || symbol.containsBytes("__allTests__") || symbol.containsBytes("TestfMp_")
      || symbol.containsBytes("$test_container__")
  }

  /// A declaration's name from its module on: without `static ` and an extension's module
  /// (`static (extension in Testing):Testing.TestCancellable.withCancellationHandling<A>(…)` →
  /// `Testing.TestCancellable.withCancellationHandling<A>(…)`).
  private static func qualifiedName(_ declaration: Substring) -> Substring {
    var name = declaration.hasPrefix("static ") ? declaration.dropFirst("static ".count) : declaration
    if name.hasPrefix("(extension in "), let end = name.firstRange(of: "):") { name = name[end.upperBound...] }
    return name
  }

  /// The module an extension's declaration is written in (`AppTests` of
  /// `(extension in AppTests):XCTest.XCTestCase.waitForFeed()`), or `nil` for another declaration.
  private static func extendingModule(of declaration: Substring) -> Substring? {
    let name = declaration.hasPrefix("static ") ? declaration.dropFirst("static ".count) : declaration
    guard name.hasPrefix("(extension in "), let end = name.firstRange(of: "):") else { return nil }
    return name[name.index(name.startIndex, offsetBy: "(extension in ".count)..<end.lowerBound]
  }

  /// Whether the frame is the concurrency runtime's code that runs tasks: the job runner, and the
  /// functions a task's first function returns to (`completeTask…`, C++ names mangled or not).
  private static func isConcurrencyRuntime(_ symbol: String) -> Bool {
    symbol.hasPrefix("swift::") || symbol.hasPrefix("_ZN5swift") || symbol.hasPrefix("swift_job_run")
      || ((symbol.hasPrefix("_ZL") || symbol.hasPrefix("complete")) && symbol.containsBytes("completeTask"))
      || symbol.containsBytes("completeInlineTask")
  }

  /// Whether a frame only passes a call on, and is never the test's own: code the compiler made
  /// to forward a call (a thunk, a partial application; also when a part of an async function),
  /// and the standard library's and concurrency library's functions (`withTaskGroup`,
  /// `AsyncStream`'s storage), which call the test's closures or are called by them.
  private static func passesCallsOn(_ name: DemangledName) -> Bool {
    if DemangledName.namesForwardingCode(name.text) || DemangledName.namesForwardingCode(String(name.declaration)) {
      return true
    }
    if name.prefixes.contains(where: { $0.kind == .partialApplication }) { return true }
    return ["Swift", "_Concurrency"].contains(module(of: name.function))
  }

  /// Whether the frame's function could be a test, for stacks with no framework frame: async, no
  /// parameters, and in a test module or directory (`AppTests`, `…/Tests/AppTests/…`).
  private static func hasTheShapeOfATest(_ frame: StackFrame) -> Bool {
    guard let symbol = frame.symbol, isAsyncFunctionName(symbol) else { return false }
    let function = functionName(symbol)
    guard function.hasSuffix("()") else { return false }
    let inTestDirectory = frame.file.map { $0.split(separator: "/").contains { $0.hasSuffix("Tests") } } ?? false
    return inTestDirectory || module(of: function).hasSuffix("Tests")
  }

  /// The module a function's name starts with (`AppTests` of `static AppTests.Suite.make()`,
  /// `Swift` of `(extension in Swift):Swift.Sequence.map<A>(…)`).
  private static func module(of function: String) -> Substring {
    qualifiedName(function[...]).prefix { $0 != "." && $0 != "(" && $0 != "<" }
  }

  private static func isAsyncFunctionName(_ symbol: String) -> Bool {
    DemangledName(symbol).isAsyncPartialFunction || symbol.containsBytes(" async")
  }
}
