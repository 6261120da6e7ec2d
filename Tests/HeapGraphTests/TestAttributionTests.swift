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
  StackFrame(
    symbol:
      "(1) await resume partial function for closure #1 () async -> () in XCTest.awaitUsingExpectation(() async throws -> ()) throws -> ()"),
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

/// Swift Testing's runner: the closure of its generic `_forEach` that adds a test's task to a
/// task group.
private let runnerClosure = StackFrame(
  symbol:
    "(3) suspend resume partial function for generic specialization <Testing.Graph<Swift.String, Swift.Optional<Testing.Runner.Plan.Step>>, Swift.LazyMapSequence<Swift.Array<(key: Swift.String, value: Testing.Graph<Swift.String, Swift.Optional<Testing.Runner.Plan.Step>>)>, Testing.Graph<Swift.String, Swift.Optional<Testing.Runner.Plan.Step>>>> of closure #1 (inout Swift.ThrowingTaskGroup<(), Swift.Error>) async throws -> () in static Testing.Runner.(_forEach in _E393D8EDD5AFFA0BF3AEFD347B81DFDF)<A, B where A: Swift.Sendable, A == B.Element, B: Swift.Sequence>(in: B, namingTasksWith: (A) -> Swift.Optional<(taskName: Swift.String, action: Swift.Optional<Swift.String>)>, _: @Sendable (A) async throws -> ()) async throws -> ()"
)

/// The frames above a Swift Testing function: the code its `@Test` macro expands to, then the
/// runner's.
private let swiftTestingFrames = [
  StackFrame(
    symbol:
      "(1) await resume partial function for $s8AppTests5adopt4TestfMp_7__localfMu_ #1 @Sendable (isolated Swift.Optional<Swift.Actor>) async throws -> () in AppTests.($s8AppTests5adopt4TestfMp_15ed3ff0d68856942fMu_ in _B7AA348DC2B826B6EED13F73D404FD86)@Sendable () async throws -> ()"
  ),
  StackFrame(
    symbol:
      "(2) await resume partial function for generic specialization <Testing.Test.Case, ()> of (extension in Testing):Testing.TestCancellable.withCancellationHandling<A>(() async throws -> A1) async throws -> A1"
  ),
  StackFrame(
    symbol: "(2) await resume partial function for Testing.Test.Case.run(configuration: Testing.Configuration) async throws -> ()"),
  StackFrame(
    symbol:
      "(1) await resume partial function for closure #1 () async -> () in Testing.Runner._runTestCases(_: Testing.Runner.Plan.Step) async throws -> ()"
  ),
  runnerClosure,
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
    let frames =
      [
        allocation, helperAfterAnAwait,
        StackFrame(symbol: "(1) await resume partial function for AppTests.RouterTests.testGet() async throws -> ()"),
      ] + asyncXCTestFrames
    XCTAssertEqual(TestAttribution.test(allocating: frames, inTestProcess: true), "AppTests.RouterTests.testGet()")
    XCTAssertEqual(TestAttribution.test(allocating: frames, inTestProcess: false), "AppTests.RouterTests.testGet()")
  }

  func testAttribution_swiftTestingFunctionCallingAnAsyncHelper_namesTheTestNotTheHelper() {
    let frames =
      [
        allocation, helperAfterAnAwait, StackFrame(symbol: "(1) await resume partial function for AppTests.adopt() async throws -> ()"),
      ] + swiftTestingFrames
    XCTAssertEqual(TestAttribution.test(allocating: frames, inTestProcess: true), "AppTests.adopt()")
  }

  func testAttribution_allocationInAClosureTheTestPassesToTheConcurrencyLibrary_namesTheTest() {
    let frames =
      [
        allocation,
        StackFrame(symbol: "closure #1 (inout _Concurrency.TaskGroup<()>) async -> () in AppTests.adopt() async throws -> ()"),
        StackFrame(
          symbol:
            "(1) await resume partial function for _Concurrency.withTaskGroup<A, B>(of: A.Type, returning: B.Type, isolation: isolated Swift.Optional<Swift.Actor>, body: (inout _Concurrency.TaskGroup<A>) async -> B) async -> B"
        ),
        StackFrame(symbol: "(1) await resume partial function for AppTests.adopt() async throws -> ()"),
      ] + swiftTestingFrames
    XCTAssertEqual(TestAttribution.test(allocating: frames, inTestProcess: true), "AppTests.adopt()")
  }

  func testAttribution_stackCutAtAnAsyncHelper_namesNoTest() {
    // The helper's callers were not read (the stack ends where the runtime resumed it): a helper
    // with parameters, or outside the test module, is not a test.
    XCTAssertNil(
      TestAttribution.test(allocating: [allocation, helperAfterAnAwait, runJob, StackFrame(symbol: "swift_job_run")], inTestProcess: true))
    let helperWithoutParameters = StackFrame(symbol: "(2) suspend resume partial function for App.Client.connect() async throws -> ()")
    XCTAssertNil(TestAttribution.test(allocating: [allocation, helperWithoutParameters, runJob], inTestProcess: true))
  }

  // MARK: - Tasks a test spawns

  func testAttribution_taskSpawnedInATest_namesTheTestItsClosureIsWrittenIn() {
    let frames = [
      allocation,
      StackFrame(
        symbol: "closure #1 @Sendable () async -> () in AppTests.foo() async -> ()", file: "/p/Tests/AppTests/FooTests.swift", line: 8),
      StackFrame(
        symbol:
          "(1) await resume partial function for partial apply forwarder for closure #1 @Sendable () async -> () in AppTests.foo() async -> ()"
      ),
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
      XCTAssertEqual(
        TestAttribution.test(allocating: [allocation, StackFrame(symbol: symbol)] + invokeTest, inTestProcess: true), expected)
    }
    let asyncSetUp =
      [allocation, StackFrame(symbol: "(1) await resume partial function for AppTests.FeedTests.setUp() async throws -> ()")]
      + asyncXCTestFrames
    XCTAssertEqual(TestAttribution.test(allocating: asyncSetUp, inTestProcess: true), "AppTests.FeedTests.setUp() (set-up)")
    let suiteInit = [allocation, StackFrame(symbol: "AppTests.FeedSuite.init() -> AppTests.FeedSuite")] + swiftTestingFrames
    XCTAssertEqual(TestAttribution.test(allocating: suiteInit, inTestProcess: true), "AppTests.FeedSuite.init() (set-up)")
  }

  /// XCTest makes an instance of a test case class for each test: what its stored properties'
  /// initial values make is set-up, named by the initializer without its parameters' types.
  func testAttribution_storedPropertyInitialValuesOfATestCase_areSetUp() {
    let frames = [
      allocation,
      StackFrame(
        symbol:
          "closure #1 () -> App.Channel in variable initialization expression of AppTests.FeedTests.(channel in _5A54195891986EDB53546BAEFB146CA5) : App.Channel",
        file: "/p/Tests/AppTests/FeedTests.swift", line: 21),
      StackFrame(
        symbol: "AppTests.FeedTests.init(name: Swift.String, testClosure: (XCTest.XCTestCase) throws -> ()) -> AppTests.FeedTests",
        file: "/p/Tests/AppTests/FeedTests.swift", line: 17),
      StackFrame(
        symbol:
          "AppTests.FeedTests.__allocating_init(name: Swift.String, testClosure: (XCTest.XCTestCase) throws -> ()) -> AppTests.FeedTests"),
      StackFrame(
        symbol:
          "closure #1 (Swift.String, (XCTest.XCTestCase) throws -> ()) -> XCTest.XCTestCase in static XCTest.XCTestCase.defaultTestSuite.getter : XCTest.XCTestSuite"
      ),
    ]
    XCTAssertEqual(
      TestAttribution.test(allocating: frames, inTestProcess: true),
      "AppTests.FeedTests.init(name: Swift.String, testClosure: (XCTest.XCTestCase) throws -> ()) (set-up)")
    XCTAssertEqual(
      RunReport.testList(
        ["AppTests.FeedTests.init(name: Swift.String, testClosure: (XCTest.XCTestCase) throws -> ()) (set-up)"],
        names: .readable(forTypeNames: [])),
      "in test AppTests.FeedTests.init(name:testClosure:) (set-up)")
  }

  func testAttribution_testCallingAFunctionNamedLikeASetUp_namesTheTest() {
    let frames = [
      allocation, StackFrame(symbol: "AppTests.Fixture.setUp() -> ()"), StackFrame(symbol: "AppTests.FeedTests.testLoad() -> ()"),
      StackFrame(symbol: "XCTest.XCTestCase.invokeTest() -> ()"),
    ]
    XCTAssertEqual(TestAttribution.test(allocating: frames, inTestProcess: true), "AppTests.FeedTests.testLoad()")
  }

  // MARK: - The test framework's own tasks

  /// Swift Testing's runner adds the task of the next test to a task group: the creation stack a
  /// task check read in a debug build, and the one a release build read, where `addTask` has a
  /// frame of its own.
  func testTestFrameworkCode_theRunnerAddingATestsTask_isTheFrameworks() {
    let addTask = StackFrame(
      symbol:
        "Swift.ThrowingTaskGroup.addTask(name: Swift.Optional<Swift.String>, priority: Swift.Optional<Swift.TaskPriority>, operation: __owned @Sendable @isolated(any) () async throws -> A) -> ()",
      file: "/toolchain/swift/stdlib/public/Concurrency/TaskGroup.swift", line: 530)
    XCTAssertTrue(TestAttribution.isTestFrameworkCode([runnerClosure]))
    XCTAssertTrue(TestAttribution.isTestFrameworkCode([addTask, runnerClosure, runJob, StackFrame(symbol: "start_thread")]))
    XCTAssertNil(TestAttribution.test(allocating: [addTask, runnerClosure, runJob], inTestProcess: true))
  }

  func testTestFrameworkCode_aTaskTheTestOrItsCodeMakes_isNotTheFrameworks() {
    let spawnInTest = StackFrame(symbol: "AppTests.adopt() async throws -> ()", file: "/p/Tests/AppTests/AdoptTests.swift", line: 4)
    XCTAssertFalse(TestAttribution.isTestFrameworkCode([spawnInTest] + swiftTestingFrames))
    XCTAssertFalse(TestAttribution.isTestFrameworkCode([allocation, helperAfterAnAwait] + asyncXCTestFrames))
    // No framework frame: a task a library made (a stack cut at the runtime, or none at all).
    XCTAssertFalse(
      TestAttribution.isTestFrameworkCode([StackFrame(symbol: "Swift.Task.init(priority:operation:)"), completeTaskWithClosure]))
    XCTAssertFalse(TestAttribution.isTestFrameworkCode([]))
  }

  /// A test target's helper in an extension of XCTest's class is the test target's code, not
  /// XCTest's: what it makes is the test's.
  func testTestFrameworkCode_aTestTargetsExtensionOfXCTestCase_isTheTestsCode() {
    let helper = StackFrame(
      symbol: "(1) await resume partial function for (extension in AppTests):XCTest.XCTestCase.waitForFeed() async throws -> App.Feed",
      file: "/p/Tests/AppTests/Helpers.swift", line: 12)
    XCTAssertFalse(TestAttribution.isTestFrameworkCode([helper] + asyncXCTestFrames))
    let xctestsOwn = StackFrame(
      symbol: "(extension in XCTest):XCTest.XCTestCase.expectation(description: Swift.String) -> XCTest.XCTestExpectation")
    XCTAssertTrue(TestAttribution.isTestFrameworkCode([xctestsOwn] + asyncXCTestFrames))
  }

  // MARK: - Another test, running in parallel

  func testAnotherTest_anObjectAParallelTestAllocated_isItsAndNotTheRunningTests() {
    let feedTest = StackFrame(
      symbol: "(1) await resume partial function for AppTests.FeedTests.load() async throws -> ()",
      file: "/p/Tests/AppTests/FeedTests.swift",
      line: 9)
    let frames = [allocation, feedTest] + swiftTestingFrames
    XCTAssertTrue(TestAttribution.isAnotherTest(allocating: frames, than: "adopt()", in: "FeedTests.swift"))
    // The same name in another file is another suite's test.
    XCTAssertTrue(TestAttribution.isAnotherTest(allocating: frames, than: "load()", in: "AdoptTests.swift"))
    XCTAssertFalse(TestAttribution.isAnotherTest(allocating: frames, than: "load()", in: "FeedTests.swift"))
    // A test with parameters is named by its labels.
    let parameterized = StackFrame(
      symbol: "AppTests.FeedTests.load(count: Swift.Int) async throws -> ()", file: "/p/Tests/AppTests/FeedTests.swift", line: 12)
    XCTAssertFalse(
      TestAttribution.isAnotherTest(
        allocating: [allocation, parameterized] + swiftTestingFrames, than: "load(count:)", in: "FeedTests.swift"))
  }

  func testAnotherTest_noTestASetUpOrTheRunningTest_isNotKnownToBeAnothers() {
    // No test in the stack: a helper's task, a library's thread.
    XCTAssertFalse(
      TestAttribution.isAnotherTest(allocating: [allocation, helperAfterAnAwait, runJob], than: "adopt()", in: "AdoptTests.swift"))
    XCTAssertFalse(TestAttribution.isAnotherTest(allocating: [], than: "adopt()", in: "AdoptTests.swift"))
    // A suite's set-up runs for the running test too.
    let suiteInit = [allocation, StackFrame(symbol: "AppTests.FeedSuite.init() -> AppTests.FeedSuite")] + swiftTestingFrames
    XCTAssertFalse(TestAttribution.isAnotherTest(allocating: suiteInit, than: "adopt()", in: "AdoptTests.swift"))
    let adopt =
      [allocation, StackFrame(symbol: "(1) await resume partial function for AppTests.adopt() async throws -> ()")] + swiftTestingFrames
    XCTAssertFalse(TestAttribution.isAnotherTest(allocating: adopt, than: "adopt()", in: "AdoptTests.swift"))
  }
}
