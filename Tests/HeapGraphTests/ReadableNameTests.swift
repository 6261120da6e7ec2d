import HeapGraph
import LeakTestSupport
import XCTest

@_silgen_name("swift_demangle")
private func swiftDemangle(
  _ mangledName: UnsafePointer<CChar>, _ length: Int, _ outputBuffer: UnsafeMutablePointer<CChar>?,
  _ outputBufferSize: UnsafeMutablePointer<Int>?, _ flags: UInt32
) -> UnsafeMutablePointer<CChar>?

/// Readable names over real symbols: each mangled name (from small modules compiled with this
/// toolchain) is demangled by the Swift runtime, as the symbolicator does, then made readable.
final class ReadableNameTests: XCTestCase {
  /// Closures in generic initializers, private functions, async functions and their partial
  /// functions, nested closures, local types and functions, extensions, operators, accessors,
  /// subscripts, default arguments, thunks and witnesses.
  static let symbols = [
    "$s7ReSwift15SubscriptionBoxC08originalC0011transformedC010subscriberACyxGAA0C0Cyqd__G_AIyxGSgAA18AnyStoreSubscriber_ptclufcyqd__Sg_qd__tcfU_",
    "$s7ReSwift15SubscriptionBoxC08originalC0011transformedC010subscriberACyxGAA0C0Cyqd__G_AIyxGSgAA18AnyStoreSubscriber_ptclufcyqd__Sg_qd__tcfU_TA",
    "$s7ReSwift15SubscriptionBoxC08originalC0011transformedC010subscriberACyxGAA0C0Cyqd__G_AIyxGSgAA18AnyStoreSubscriber_ptclufC",
    "$s7ReSwift12SubscriptionC7_select33_6F9ECF150ADD9527A171C431DF6CF69BLLyACyqd__Gqd__xclF",
    "$s7ReSwift12SubscriptionC7_select33_6F9ECF150ADD9527A171C431DF6CF69BLLyACyqd__Gqd__xclFyxSg_xtcfU_",
    "$s7ReSwift12SubscriptionC4sinkACyxGyyxSg_xtcc_tc33_7038C3DB39E4257FAB9EE57FECCA9BB1LlfcyAF_xtcfU_",
    "$s7ReSwift07ProfileB5TestsV9actorLeakyyYaF",
    "$s7ReSwift07ProfileB5TestsV9actorLeakyyYaFTY0_",
    "$s7ReSwift07ProfileB5TestsV9actorLeakyyYaFTQ2_",
    "$s7ReSwift07ProfileB5TestsV9actorLeakyyYaFTu",
    "$s7FeedKit0A0C4load2to_7handleryyXl_Siys6ResultOySaySiGs5Error_pGctYaKFTY0_",
    "$s7FeedKit0A0C4load2to_7handleryyXl_Siys6ResultOySaySiGs5Error_pGctYaKFyycfU_TA",
    "$s7FeedKit0A0C4load2to_7handleryyXl_Siys6ResultOySaySiGs5Error_pGctYaKF5localL_yycyFyycfU_",
    "$s7ReSwift9makeLocalyXlyF0D0L_CADycfcyycfU_",
    "$s7ReSwift9makeLocalyXlyF0D0L_C1fyycSgvg",
    "$s7FeedKit8RendererPAAE9scheduledyycyFyycfU_",
    "$sSa7ReSwiftSQRzlE8leakyMapySayxGycxxcFACycfU_",
    "$s7ReSwift3ltgoiySiycSi_SitFSiycfU_",
    "$s7ReSwift15SubscriptionBoxC2eeoiySbACyxG_AEtFZ",
    "$s7ReSwift15SubscriptionBoxCyxGSQAASQ2eeoiySbx_xtFZTW",
    "$s7ReSwift5StoreC7handleryySicvgySicfU_",
    "$s7ReSwift5StoreC25$__lazy_storage_$_handler33_6F9ECF150ADD9527A171C431DF6CF69BLLySicSgvpfi",
    "$s7FeedKit0A0C5titleSSvW",
    "$s7FeedKit0A0C5itemsSaySSGvM.resume.0",
    "$s7FeedKit0A0CySSycSicigSSycfU_",
    "$s7FeedKit0A0C4make5count5namedACSi_SStKFZfA_",
    "$s7FeedKit0A0CACycfC",
    "$s7FeedKit5RouteO7handleryySiSgcSDySSSiGFyAEcfU_",
    "$s7FeedKit5outerySDyxSayxGGxSHRzlF",
    "$ss5print_9separator10terminatoryypd_S2StFfA0_",
  ]

  private func demangled(_ symbol: String) -> String {
    symbol.withCString { pointer in
      guard let result = swiftDemangle(pointer, strlen(pointer), nil, nil, 0) else { return symbol }
      defer { free(result) }
      return String(cString: result)
    }
  }

  func testSymbols_matchGoldenFile() {
    var out = ""
    for symbol in Self.symbols {
      let full = demangled(symbol)
      XCTAssertNotEqual(full, symbol, "the runtime could not demangle \(symbol)")
      out += "\(full)\n  → \(ReadableName.symbol(full))\n"
    }
    assertMatchesGolden(out, named: "readable-names.txt")
  }

  func testTypeNames_dropModulesAndUseSugar() {
    XCTAssertEqual(ReadableName.type("ReSwift.Subscription<RWTests.RWAppState>"), "Subscription<RWAppState>")
    XCTAssertEqual(ReadableName.type("Swift.Optional<App.Feed>"), "Feed?")
    XCTAssertEqual(ReadableName.type("Swift.Dictionary<Swift.String, Swift.Array<App.Item>>"), "[String: [Item]]")
    XCTAssertEqual(ReadableName.type("Swift.Optional<(Swift.Int) -> ()>"), "((Int) -> ())?")
    XCTAssertEqual(ReadableName.type("App.Outer.Inner<A>"), "Outer.Inner<A>")
    XCTAssertEqual(ReadableName.type("App.Outer.Inner<A>", keepingModule: true), "App.Outer.Inner<A>")
    XCTAssertEqual(ReadableName.type("box<Int>"), "box<Int>")
    XCTAssertEqual(ReadableName.type("Task"), "Task")
    XCTAssertEqual(ReadableName.type("closure #1 in App.Feed.load(to: View, Int)"), "closure #1 in Feed.load(to:_:)")
    XCTAssertEqual(
      ReadableName.type("closure #1 in App.Feed.load(to: View, Int)", keepingModule: true), "closure #1 in App.Feed.load(to:_:)")
    XCTAssertEqual(
      ReadableName.type("reabstraction thunk of closure #2 in App.Container.register(_: App.Entry)"),
      "reabstraction thunk of closure #2 in Container.register(_:)")
    XCTAssertEqual(ReadableName.type("reabstraction thunk"), "reabstraction thunk")
  }

  func testModules_areTheOutermostDeclarations() {
    XCTAssertEqual(ReadableName.module(of: "ReSwift.Subscription<RWTests.RWAppState>"), "ReSwift")
    XCTAssertEqual(ReadableName.module(of: "closure #1 in closure #2 in ReSwift.Store.init(reducer: (Action, A?) -> A)"), "ReSwift")
    XCTAssertEqual(ReadableName.module(of: "(1) suspend resume partial function for Tests.Profile.leak() async -> ()"), "Tests")
    XCTAssertNil(ReadableName.module(of: "box<Int>"))
    XCTAssertNil(ReadableName.module(of: "Swift._ContiguousArrayStorage<App.Feed>"))
    XCTAssertNil(ReadableName.module(of: "Task"))
  }
}
