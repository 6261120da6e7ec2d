import HeapGraph
import XCTest

/// One parse of demangled names for every reader: the prefixes, the contexts, and the names made
/// from them, on names that the test suites and golden files hold (as the runtime demangles them).
final class DemangledNameTests: XCTestCase {
  private struct Case {
    var name: String
    var prefixes: [DemangledName.Prefix.Kind]
    var contexts: [String]
    var isClosure: Bool
    var closureName: String
    var function: String

    init(
      _ name: String, prefixes: [DemangledName.Prefix.Kind], contexts: [String], isClosure: Bool, closureName: String,
      function: String
    ) {
      self.name = name
      self.prefixes = prefixes
      self.contexts = contexts
      self.isClosure = isClosure
      self.closureName = closureName
      self.function = function
    }
  }

  private let cases: [Case] = [
    Case(
      "partial apply forwarder for closure #1 () -> () in MyApp.Feed.load(to: MyApp.View, Swift.Int) -> ()",
      prefixes: [.partialApplication], contexts: ["closure #1 () -> ()", "MyApp.Feed.load(to: MyApp.View, Swift.Int) -> ()"],
      isClosure: true, closureName: "closure #1 in MyApp.Feed.load(to: View, Int)", function: "MyApp.Feed.load(to: MyApp.View, Swift.Int)"),
    Case(
      "closure #1 (A?, A) -> () in ReSwift.Subscription.(in _7038C3DB39E4257FAB9EE57FECCA9BB1).init(sink: ((A?, A) -> ()) -> ()) -> ReSwift.Subscription<A>",
      prefixes: [],
      contexts: [
        "closure #1 (A?, A) -> ()",
        "ReSwift.Subscription.(in _7038C3DB39E4257FAB9EE57FECCA9BB1).init(sink: ((A?, A) -> ()) -> ()) -> ReSwift.Subscription<A>",
      ],
      isClosure: true,
      closureName: "closure #1 in ReSwift.Subscription.(in _7038C3DB39E4257FAB9EE57FECCA9BB1).init(sink: ((A?, A) -> ()) -> ())",
      function: "ReSwift.Subscription.(in _7038C3DB39E4257FAB9EE57FECCA9BB1).init(sink: ((A?, A) -> ()) -> ())"),
    Case(
      "closure #1 (A?, A) -> () in ReSwift.Subscription.(_select in _6F9ECF150ADD9527A171C431DF6CF69B)<A>((A) -> A1) -> ReSwift.Subscription<A1>",
      prefixes: [],
      contexts: [
        "closure #1 (A?, A) -> ()",
        "ReSwift.Subscription.(_select in _6F9ECF150ADD9527A171C431DF6CF69B)<A>((A) -> A1) -> ReSwift.Subscription<A1>",
      ],
      isClosure: true, closureName: "closure #1 in ReSwift.Subscription.(_select in _6F9ECF150ADD9527A171C431DF6CF69B)<A>((A) -> A1)",
      function: "ReSwift.Subscription.(_select in _6F9ECF150ADD9527A171C431DF6CF69B)<A>((A) -> A1)"),
    Case(
      "closure #1 (Swift.Optional<A1>, A1) -> () in ReSwift.SubscriptionBox.init<A>(originalSubscription: ReSwift.Subscription<A1>, transformedSubscription: Swift.Optional<ReSwift.Subscription<A>>, subscriber: ReSwift.AnyStoreSubscriber) -> ReSwift.SubscriptionBox<A>",
      prefixes: [],
      contexts: [
        "closure #1 (Swift.Optional<A1>, A1) -> ()",
        "ReSwift.SubscriptionBox.init<A>(originalSubscription: ReSwift.Subscription<A1>, transformedSubscription: Swift.Optional<ReSwift.Subscription<A>>, subscriber: ReSwift.AnyStoreSubscriber) -> ReSwift.SubscriptionBox<A>",
      ],
      isClosure: true,
      closureName:
        "closure #1 in ReSwift.SubscriptionBox.init<A>(originalSubscription: Subscription<A1>, transformedSubscription: Optional<Subscription<A>>, subscriber: AnyStoreSubscriber)",
      function:
        "ReSwift.SubscriptionBox.init<A>(originalSubscription: ReSwift.Subscription<A1>, transformedSubscription: Swift.Optional<ReSwift.Subscription<A>>, subscriber: ReSwift.AnyStoreSubscriber)"
    ),
    Case(
      "implicit closure #2 () -> () in implicit closure #1 (PetsTests.XCPetsTests) -> () -> () in variable initialization expression of static (extension in PetsPackageDiscoveredTests):PetsTests.XCPetsTests.(__allTests__XCPetsTests in _C508C02AFF32EC366A898C3ED908C2B2) : Swift.Array<(Swift.String, (PetsTests.XCPetsTests) -> () -> ())>",
      prefixes: [],
      contexts: [
        "implicit closure #2 () -> ()", "implicit closure #1 (PetsTests.XCPetsTests) -> () -> ()",
        "variable initialization expression of static (extension in PetsPackageDiscoveredTests):PetsTests.XCPetsTests.(__allTests__XCPetsTests in _C508C02AFF32EC366A898C3ED908C2B2) : Swift.Array<(Swift.String, (PetsTests.XCPetsTests) -> () -> ())>",
      ],
      isClosure: true,
      closureName:
        "implicit closure #2 in implicit closure #1 in variable initialization expression of static (extension in PetsPackageDiscoveredTests):PetsTests.XCPetsTests.(__allTests__XCPetsTests in _C508C02AFF32EC366A898C3ED908C2B2) : Array<(String, (XCPetsTests) -> () -> ())",
      function:
        "variable initialization expression of static (extension in PetsPackageDiscoveredTests):PetsTests.XCPetsTests.(__allTests__XCPetsTests in _C508C02AFF32EC366A898C3ED908C2B2) : Swift.Array<(Swift.String, (PetsTests.XCPetsTests) -> () -> ())>"
    ),
    Case(
      "implicit closure #1 () throws -> Swift.Optional<Any> in SwinjectTests.LazyTests.testCircular() -> ()",
      prefixes: [], contexts: ["implicit closure #1 () throws -> Swift.Optional<Any>", "SwinjectTests.LazyTests.testCircular() -> ()"],
      isClosure: true, closureName: "implicit closure #1 in SwinjectTests.LazyTests.testCircular()",
      function: "SwinjectTests.LazyTests.testCircular()"),
    Case(
      "closure #1 (XCTest.XCTestCase) throws -> () in XCTest.(test in _3BE257A46ADB477C7BF2D39968B39F9D)<A where A: XCTest.XCTestCase>((A) -> () throws -> ()) -> (XCTest.XCTestCase) throws -> ()",
      prefixes: [],
      contexts: [
        "closure #1 (XCTest.XCTestCase) throws -> ()",
        "XCTest.(test in _3BE257A46ADB477C7BF2D39968B39F9D)<A where A: XCTest.XCTestCase>((A) -> () throws -> ()) -> (XCTest.XCTestCase) throws -> ()",
      ],
      isClosure: true,
      closureName: "closure #1 in XCTest.(test in _3BE257A46ADB477C7BF2D39968B39F9D)<A where A: XCTestCase>((A) -> () throws -> ())",
      function: "XCTest.(test in _3BE257A46ADB477C7BF2D39968B39F9D)<A where A: XCTest.XCTestCase>((A) -> () throws -> ())"),
    Case(
      "(2) suspend resume partial function for PetsTests.asyncLeak() async -> ()",
      prefixes: [.asyncPartialFunction], contexts: ["PetsTests.asyncLeak() async -> ()"],
      isClosure: false, closureName: "(2) suspend resume partial function for PetsTests.asyncLeak()", function: "PetsTests.asyncLeak()"),
    Case(
      "(3) await resume partial function for ReSwift.ProfileSwiftTests.actorLeak() async -> ()",
      prefixes: [.asyncPartialFunction], contexts: ["ReSwift.ProfileSwiftTests.actorLeak() async -> ()"],
      isClosure: false, closureName: "(3) await resume partial function for ReSwift.ProfileSwiftTests.actorLeak()",
      function: "ReSwift.ProfileSwiftTests.actorLeak()"),
    Case(
      "async function pointer to ReSwift.ProfileSwiftTests.actorLeak() async -> ()",
      prefixes: [.relation], contexts: ["ReSwift.ProfileSwiftTests.actorLeak() async -> ()"],
      isClosure: false, closureName: "async function pointer to ReSwift.ProfileSwiftTests.actorLeak()",
      function: "ReSwift.ProfileSwiftTests.actorLeak()"),
    Case(
      "closure #1 () -> () in local #1 () -> () -> () in FeedKit.Feed.load(to: Swift.AnyObject, _: Swift.Int, handler: (Swift.Result<Swift.Array<Swift.Int>, Swift.Error>) -> ()) async throws -> ()",
      prefixes: [],
      contexts: [
        "closure #1 () -> ()", "local #1 () -> () -> ()",
        "FeedKit.Feed.load(to: Swift.AnyObject, _: Swift.Int, handler: (Swift.Result<Swift.Array<Swift.Int>, Swift.Error>) -> ()) async throws -> ()",
      ],
      isClosure: true,
      closureName: "closure #1 in local #1 in FeedKit.Feed.load(to: AnyObject, _: Int, handler: (Result<Array<Int>, Error>) -> ())",
      function: "FeedKit.Feed.load(to: Swift.AnyObject, _: Swift.Int, handler: (Swift.Result<Swift.Array<Swift.Int>, Swift.Error>) -> ())"),
    Case(
      "closure #1 () -> () in init() -> Local #1 in ReSwift.makeLocal() -> Swift.AnyObject in Local #1 in ReSwift.makeLocal() -> Swift.AnyObject",
      prefixes: [],
      contexts: [
        "closure #1 () -> ()", "init() -> Local #1", "ReSwift.makeLocal() -> Swift.AnyObject", "Local #1",
        "ReSwift.makeLocal() -> Swift.AnyObject",
      ],
      isClosure: true, closureName: "closure #1 in init()", function: "ReSwift.makeLocal()"),
    Case(
      "closure #1 () -> Swift.Int in ReSwift.<~> infix(Swift.Int, Swift.Int) -> () -> Swift.Int",
      prefixes: [], contexts: ["closure #1 () -> Swift.Int", "ReSwift.<~> infix(Swift.Int, Swift.Int) -> () -> Swift.Int"],
      isClosure: true, closureName: "closure #1 in ReSwift.<~> infix(Int, Int)", function: "ReSwift.<~> infix(Swift.Int, Swift.Int)"),
    Case(
      "protocol witness for static Swift.Equatable.== infix(A, A) -> Swift.Bool in conformance ReSwift.SubscriptionBox<A> : Swift.Equatable in ReSwift",
      prefixes: [.relation],
      contexts: [
        "static Swift.Equatable.== infix(A, A) -> Swift.Bool", "conformance ReSwift.SubscriptionBox<A> : Swift.Equatable", "ReSwift",
      ],
      isClosure: false, closureName: "protocol witness for static Swift.Equatable.== infix(A, A)",
      function: "static Swift.Equatable.== infix(A, A)"),
    Case(
      "FeedKit.Feed.items.modify : Swift.Array<Swift.String> with unmangled suffix \".resume.0\"",
      prefixes: [], contexts: ["FeedKit.Feed.items.modify : Swift.Array<Swift.String>"],
      isClosure: false, closureName: "FeedKit.Feed.items.modify : Swift.Array<Swift.String>",
      function: "FeedKit.Feed.items.modify : Swift.Array<Swift.String>"),
    Case(
      "reabstraction thunk helper from @escaping @callee_guaranteed () -> () to @escaping @callee_guaranteed () -> (@out ())",
      prefixes: [],
      contexts: ["reabstraction thunk helper from @escaping @callee_guaranteed () -> () to @escaping @callee_guaranteed () -> (@out ())"],
      isClosure: false, closureName: "reabstraction thunk", function: "reabstraction thunk helper from @escaping @callee_guaranteed ()"),
    Case(
      "XCTest.XCTestCase.invokeTest() -> ()",
      prefixes: [], contexts: ["XCTest.XCTestCase.invokeTest() -> ()"],
      isClosure: false, closureName: "XCTest.XCTestCase.invokeTest()", function: "XCTest.XCTestCase.invokeTest()"),
    Case(
      "static Tests.Runner.main() -> ()",
      prefixes: [], contexts: ["static Tests.Runner.main() -> ()"],
      isClosure: false, closureName: "static Tests.Runner.main()", function: "static Tests.Runner.main()"),
    Case(
      "Pets.Pet.__allocating_init(name: Swift.String) -> Pets.Pet",
      prefixes: [], contexts: ["Pets.Pet.__allocating_init(name: Swift.String) -> Pets.Pet"],
      isClosure: false, closureName: "Pets.Pet.__allocating_init(name: String)", function: "Pets.Pet.__allocating_init(name: Swift.String)"),
  ]

  func testDemangledName_realNames_parseIntoPrefixesContextsAndNames() {
    for expected in cases {
      let name = DemangledName(expected.name)
      XCTAssertEqual(name.text, expected.name)
      XCTAssertEqual(name.prefixes.map(\.kind), expected.prefixes, expected.name)
      XCTAssertEqual(name.contexts.map(String.init), expected.contexts, expected.name)
      XCTAssertEqual(name.isClosure, expected.isClosure, expected.name)
      XCTAssertEqual(name.closureName, expected.closureName, expected.name)
      XCTAssertEqual(name.function, expected.function, expected.name)
    }
  }

  func testDemangledName_prefixes_keepTheirText() {
    let name = DemangledName("(2) suspend resume partial function for PetsTests.asyncLeak() async -> ()")
    XCTAssertEqual(name.prefixes.map(\.text), ["(2) suspend resume partial function for "])
    XCTAssertEqual(name.declaration, "PetsTests.asyncLeak() async -> ()")
    XCTAssertTrue(name.isAsyncPartialFunction)
    let specialized = DemangledName("generic specialization <Swift.Int> of merged App.Box.get() -> A")
    XCTAssertEqual(specialized.prefixes.map(\.text), ["generic specialization <Swift.Int> of ", "merged "])
    XCTAssertEqual(specialized.declaration, "App.Box.get() -> A")
  }

  func testDemangledName_thunksAndClosureNumbers() {
    XCTAssertTrue(DemangledName("reabstraction thunk helper from @escaping @callee_guaranteed () -> ()").isReabstractionThunk)
    XCTAssertFalse(DemangledName("App.reabstraction").isReabstractionThunk)
    XCTAssertEqual(DemangledName.closureNumber(of: "closure #12 () -> ()"), "closure #12")
    XCTAssertEqual(DemangledName.closureNumber(of: "implicit closure #3"), "implicit closure #3")
    XCTAssertNil(DemangledName.closureNumber(of: "Local #1"))
    XCTAssertFalse(DemangledName("MyApp.closure #1").isClosure)
    for forwarding in [
      "reabstraction thunk helper from @escaping @callee_guaranteed () -> ()", "partial apply for closure #1 in App.Feed.load()",
      "thunk for @escaping @callee_guaranteed () -> ()", "merged App.Feed.load() -> ()", "outlined copy of App.Feed.State",
    ] {
      XCTAssertTrue(DemangledName.namesForwardingCode(forwarding), forwarding)
    }
    XCTAssertFalse(DemangledName.namesForwardingCode("closure #1 in App.Feed.load()"))
    XCTAssertFalse(DemangledName.namesForwardingCode("App.thunk(for:)"))
  }

  func testDemangledName_unqualified_dropsQualifiersOnly() {
    XCTAssertEqual(DemangledName.unqualified("Swift.Optional<MyApp.Feed>"), "Optional<Feed>")
    XCTAssertEqual(DemangledName.unqualified("Swift.Dictionary<Swift.String, Swift.Int>.Index"), "Dictionary<String, Int>.Index")
  }
}
