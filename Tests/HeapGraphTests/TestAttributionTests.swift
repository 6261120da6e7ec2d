import HeapGraph
import XCTest

/// The runtime's frames where a task's first function returns and where jobs run, as the
/// symbolizer names them (C++ names stay mangled).
private let completeTaskWithClosure = StackFrame(symbol: "_ZL23completeTaskWithClosurePN5swift12AsyncContextEPNS_10SwiftErrorE")
private let runJob = StackFrame(symbol: "_ZN5swift34runJobInEstablishedExecutorContextEPNS_3JobE")

/// The frames above an async XCTest method on Linux: the test list's async closure, XCTest's
/// `awaitUsingExpectation`, which runs the test in a task, and the thunks in between.
private let asyncXCTestFrames = [
  StackFrame(
    symbol:
      "(1) await resume partial function for implicit closure #2 () async throws -> () in implicit closure #1 (AppTests.RouterTests) -> () async throws -> () in variable initialization expression of static (extension in AppPackageDiscoveredTests):AppTests.RouterTests.(__allTests__RouterTests in _E935FA646081D03EDB913E79F0FA1E3E) : Swift.Array<(Swift.String, (AppTests.RouterTests) -> () throws -> ())>"
  ),
  StackFrame(symbol: "(1) await resume partial function for closure #1 () async -> () in XCTest.awaitUsingExpectation(() async throws -> ()) throws -> ()"),
  StackFrame(
    symbol:
      "(1) await resume partial function for partial apply forwarder for closure #1 () async -> () in XCTest.awaitUsingExpectation(() async throws -> ()) throws -> ()"
  ),
  StackFrame(
    symbol:
      "(1) await resume partial function for generic specialization <()> of reabstraction thunk helper <A, B where A: Swift.Sendable, B == Swift.Never> from @escaping @isolated(any) @callee_guaranteed @async () -> (@out A) to @escaping @callee_guaranteed @async () -> (@out A, @error @owned Swift.Error)"
  ),
  completeTaskWithClosure,
]

/// The frames above a Swift Testing function: the code its `@Test` macro expands to, then the
/// runner's.
private let swiftTestingFrames = [
  StackFrame(
    symbol:
      "(1) await resume partial function for $s8AppTests5adopt4TestfMp_7__localfMu_ #1 @Sendable (isolated Swift.Optional<Swift.Actor>) async throws -> () in AppTests.($s8AppTests5adopt4TestfMp_15ed3ff0d68856942fMu_ in _B7AA348DC2B826B6EED13F73D404FD86)@Sendable () async throws -> ()"
  ),
  StackFrame(symbol: "(2) await resume partial function for Testing.Test.Case.run(configuration: Testing.Configuration) async throws -> ()"),
  StackFrame(symbol: "(1) await resume partial function for closure #1 () async -> () in Testing.Runner._runTestCases(_: Testing.Runner.Plan.Step) async throws -> ()"),
  StackFrame(symbol: "_ZL12completeTaskPN5swift12AsyncContextEPNS_10SwiftErrorE"),
]

private let helperAfterAnAwait = StackFrame(
  symbol:
    "(2) suspend resume partial function for HummingbirdTesting.RouterTestFramework.Client.executeRequest(uri: Swift.String, method: HTTPTypes.HTTPRequest.Method) async throws -> HummingbirdTesting.TestResponse",
  file: "/p/.build/checkouts/hummingbird/Sources/HummingbirdTesting/RouterTestFramework.swift", line: 40)

private let allocation = StackFrame(symbol: "App.Channel.__allocating_init() -> App.Channel", file: "/p/Sources/App/Channel.swift", line: 3)

/// Which test allocated an object, from stacks that go on through async callers
/// (`TestAttribution`).
final class TestAttributionTests: XCTestCase {
  // MARK: - Async tests

  func testAttribution_asyncXCTestCallingAnAsyncHelper_namesTheTestNotTheHelper() {
    let frames = [
      allocation, helperAfterAnAwait,
      StackFrame(symbol: "(1) await resume partial function for AppTests.RouterTests.testGet() async throws -> ()"),
    ] + asyncXCTestFrames
    XCTAssertEqual(TestAttribution.test(allocating: frames, inTestProcess: true), "AppTests.RouterTests.testGet()")
    XCTAssertEqual(TestAttribution.test(allocating: frames, inTestProcess: false), "AppTests.RouterTests.testGet()")
  }

  func testAttribution_swiftTestingFunctionCallingAnAsyncHelper_namesTheTestNotTheHelper() {
    let frames = [
      allocation, helperAfterAnAwait, StackFrame(symbol: "(1) await resume partial function for AppTests.adopt() async throws -> ()"),
    ] + swiftTestingFrames
    XCTAssertEqual(TestAttribution.test(allocating: frames, inTestProcess: true), "AppTests.adopt()")
  }

  func testAttribution_allocationInAClosureTheTestPassesToTheConcurrencyLibrary_namesTheTest() {
    let frames = [
      allocation,
      StackFrame(symbol: "closure #1 (inout _Concurrency.TaskGroup<()>) async -> () in AppTests.adopt() async throws -> ()"),
      StackFrame(symbol: "(1) await resume partial function for _Concurrency.withTaskGroup<A, B>(of: A.Type, returning: B.Type, isolation: isolated Swift.Optional<Swift.Actor>, body: (inout _Concurrency.TaskGroup<A>) async -> B) async -> B"),
      StackFrame(symbol: "(1) await resume partial function for AppTests.adopt() async throws -> ()"),
    ] + swiftTestingFrames
    XCTAssertEqual(TestAttribution.test(allocating: frames, inTestProcess: true), "AppTests.adopt()")
  }

  func testAttribution_stackCutAtAnAsyncHelper_namesNoTest() {
    // The helper's callers were not read (the stack ends where the runtime resumed it): a helper
    // with parameters, or outside the test module, is not a test.
    XCTAssertNil(TestAttribution.test(allocating: [allocation, helperAfterAnAwait, runJob, StackFrame(symbol: "swift_job_run")], inTestProcess: true))
    let helperWithoutParameters = StackFrame(symbol: "(2) suspend resume partial function for App.Client.connect() async throws -> ()")
    XCTAssertNil(TestAttribution.test(allocating: [allocation, helperWithoutParameters, runJob], inTestProcess: true))
  }

  // MARK: - Tasks a test spawns

  func testAttribution_taskSpawnedInATest_namesTheTestItsClosureIsWrittenIn() {
    let frames = [
      allocation,
      StackFrame(symbol: "closure #1 @Sendable () async -> () in AppTests.foo() async -> ()", file: "/p/Tests/AppTests/FooTests.swift", line: 8),
      StackFrame(symbol: "(1) await resume partial function for partial apply forwarder for closure #1 @Sendable () async -> () in AppTests.foo() async -> ()"),
      StackFrame(
        symbol:
          "(1) await resume partial function for generic specialization <()> of reabstraction thunk helper <A where A: Swift.Sendable> from @escaping @isolated(any) @callee_guaranteed @async () -> (@out A) to @escaping @callee_guaranteed @async () -> (@out A, @error @owned Swift.Error)"
      ),
      completeTaskWithClosure,
    ]
    XCTAssertEqual(TestAttribution.test(allocating: frames, inTestProcess: true), "AppTests.foo()")
    XCTAssertNil(TestAttribution.test(allocating: frames, inTestProcess: false))
  }

  func testAttribution_taskSpawnedInAHelperOrALibrary_namesNoTest() {
    for spawner in [
      "closure #1 @Sendable () async -> () in AppTests.Spawner.spawn(count: Swift.Int) -> ()",
      "closure #1 @Sendable () async -> () in NIOPosix.MultiThreadedEventLoopGroup.shutdown() async -> ()",
    ] {
      let frames = [allocation, StackFrame(symbol: spawner), completeTaskWithClosure]
      XCTAssertNil(TestAttribution.test(allocating: frames, inTestProcess: true), spawner)
    }
  }

  // MARK: - Set-up and tear-down

  func testAttribution_setUpAndTearDown_areNamedAsSuch() {
    let invokeTest = [
      StackFrame(symbol: "XCTest.XCTestCase.performSetUpSequence() -> ()"), StackFrame(symbol: "XCTest.XCTestCase.invokeTest() -> ()"),
    ]
    for (symbol, expected) in [
      ("AppTests.FeedTests.setUpWithError() throws -> ()", "AppTests.FeedTests.setUpWithError() (set-up)"),
      ("AppTests.FeedTests.setUp() -> ()", "AppTests.FeedTests.setUp() (set-up)"),
      ("static AppTests.FeedTests.setUp() -> ()", "static AppTests.FeedTests.setUp() (set-up)"),
      ("AppTests.FeedTests.tearDownWithError() throws -> ()", "AppTests.FeedTests.tearDownWithError() (tear-down)"),
      ("closure #1 () -> () in AppTests.FeedTests.tearDown() -> ()", "AppTests.FeedTests.tearDown() (tear-down)"),
    ] {
      XCTAssertEqual(TestAttribution.test(allocating: [allocation, StackFrame(symbol: symbol)] + invokeTest, inTestProcess: true), expected)
    }
    let asyncSetUp = [allocation, StackFrame(symbol: "(1) await resume partial function for AppTests.FeedTests.setUp() async throws -> ()")]
      + asyncXCTestFrames
    XCTAssertEqual(TestAttribution.test(allocating: asyncSetUp, inTestProcess: true), "AppTests.FeedTests.setUp() (set-up)")
    let suiteInit = [allocation, StackFrame(symbol: "AppTests.FeedSuite.init() -> AppTests.FeedSuite")] + swiftTestingFrames
    XCTAssertEqual(TestAttribution.test(allocating: suiteInit, inTestProcess: true), "AppTests.FeedSuite.init() (set-up)")
  }

  func testAttribution_testCallingAFunctionNamedLikeASetUp_namesTheTest() {
    let frames = [
      allocation, StackFrame(symbol: "AppTests.Fixture.setUp() -> ()"), StackFrame(symbol: "AppTests.FeedTests.testLoad() -> ()"),
      StackFrame(symbol: "XCTest.XCTestCase.invokeTest() -> ()"),
    ]
    XCTAssertEqual(TestAttribution.test(allocating: frames, inTestProcess: true), "AppTests.FeedTests.testLoad()")
  }
}
