/// Which test allocated an object, read from its allocation stack: the test function is the
/// outermost frame of the test's own code, just inside the test framework's outermost frames
/// (XCTest's `XCTestCase.invokeTest()`, Swift Testing's runner and the thunks its `@Test` macro
/// generates), past the framework frames the test's code calls itself (an assertion).
/// After an `await`, an async test's frames are resumed by the concurrency runtime rather than
/// called by the framework; in a test process, the outermost async function there is the test.
///
/// ```text
/// [App.Node.__allocating_init(), App.makePair() (Pair.swift:3), AppTests.PairTests.testPair() (PairTests.swift:9),
///  closure #1 in XCTest.test<A>(...), XCTest.XCTestCase.invokeTest() -> ()]  →  AppTests.PairTests.testPair()
/// ```
public enum TestAttribution {
  /// The test function that allocated an object with `frames` (innermost first), or `nil` when
  /// the stack shows none. `inTestProcess` allows the async rule (a test runner's process).
  public static func test(allocating frames: [StackFrame], inTestProcess: Bool) -> String? {
    // The test's code may call into the framework and be called back (an assertion's autoclosure
    // in a helper): the test is the candidate below the framework's outermost frames.
    var candidate: String?
    var found: String?
    for frame in frames {
      guard let symbol = frame.symbol else { continue }
      if isFramework(symbol) {
        found = candidate ?? found
        candidate = nil
      } else if isConcurrencyRuntime(symbol) {
        guard found == nil else { break }
        return inTestProcess && candidate.map(isAsyncFunctionName) == true ? candidate.map(functionName) : nil
      } else if !DemangledName.namesForwardingCode(symbol) {
        candidate = symbol
      }
    }
    return found.map(functionName)
  }

  /// The function a frame's symbol names as people write it (`DemangledName.function`): no
  /// async-resumption prefix, no result type (`ProfileTests.actorLeak() async -> ()` →
  /// `ProfileTests.actorLeak()`); a closure in the test (`XCTAssert`'s autoclosure, say) names the
  /// test it is written in.
  static func functionName(_ symbol: String) -> String {
    DemangledName(symbol).function
  }

  private static func isFramework(_ symbol: String) -> Bool {
    // XCTest's own frames, the test list SwiftPM generates (`__allTests__…`), Swift Testing's
    // frames and the code its `@Test` macro expands to (mangled `…TestfMp_…`).
    symbol.hasPrefix("XCTest.") || symbol.hasPrefix("Testing.") || symbol.contains(" in XCTest.")
      || symbol.contains(" in Testing.") || symbol.contains("__allTests__") || symbol.contains("TestfMp_")
      || symbol.contains("$test_container__")
  }

  private static func isConcurrencyRuntime(_ symbol: String) -> Bool {
    symbol.hasPrefix("swift::") || symbol.hasPrefix("_ZN5swift") || symbol.hasPrefix("swift_job_run")
      || symbol.hasPrefix("_Concurrency.") || symbol.hasPrefix("completeTaskWithClosure")
  }

  private static func isAsyncFunctionName(_ symbol: String) -> Bool {
    DemangledName(symbol).isAsyncPartialFunction || symbol.contains(" async")
  }
}
