import HeapGraph
import LeakDetector
import XCTest

/// How a capture names a closure context (its type name in snapshots, which fingerprints hash):
/// the closure's function without its signature, its enclosing function with its parameters.
final class ClosureNameTests: XCTestCase {
  func testClosureName_dropsSignaturesAndThunkPrefixes() {
    XCTAssertEqual(
      Symbolicator.closureName("partial apply forwarder for closure #1 () -> () in MyApp.Feed.load(to: MyApp.View, Swift.Int) -> ()"),
      "closure #1 in MyApp.Feed.load(to: View, Int)")
  }

  /// A private declaration's discriminator is not its parameter list: the name keeps what follows.
  func testClosureName_privateDeclarations_keepTheirParameters() {
    let privateInit =
      "closure #1 (A?, A) -> () in ReSwift.Subscription.(in _7038C3DB39E4257FAB9EE57FECCA9BB1).init(sink: ((A?, A) -> ()) -> ()) -> ReSwift.Subscription<A>"
    XCTAssertEqual(
      Symbolicator.closureName(privateInit),
      "closure #1 in ReSwift.Subscription.(in _7038C3DB39E4257FAB9EE57FECCA9BB1).init(sink: ((A?, A) -> ()) -> ())")
    XCTAssertEqual(ReadableName.symbol(Symbolicator.closureName(privateInit)), "closure #1 in Subscription.init(sink:)")

    let privateMethod =
      "closure #1 (A?, A) -> () in ReSwift.Subscription.(_select in _6F9ECF150ADD9527A171C431DF6CF69B)<A>((A) -> A1) -> ReSwift.Subscription<A1>"
    XCTAssertEqual(
      Symbolicator.closureName(privateMethod),
      "closure #1 in ReSwift.Subscription.(_select in _6F9ECF150ADD9527A171C431DF6CF69B)<A>((A) -> A1)")
    XCTAssertEqual(ReadableName.symbol(Symbolicator.closureName(privateMethod)), "closure #1 in Subscription._select(_:)")
  }

  /// An extension's module is not its parameter list either: a closure in a test target's
  /// extension of XCTest keeps its function, so that it reads as the test target's.
  func testClosureName_extensionsInAnotherModule_keepTheirFunction() {
    let inExtension =
      "closure #1 (OpenCombineTests.CustomSubscription) -> () in (extension in OpenCombineTests):XCTest.XCTest.testCancelBeforeSubscription<A, B where B: OpenCombine.Publisher>(inputType: A.Type, expected: (extension in OpenCombineTests):XCTest.XCTest.CancelBeforeSubscriptionBehavior) throws -> ()"
    XCTAssertEqual(
      Symbolicator.closureName(inExtension),
      "closure #1 in (extension in OpenCombineTests):XCTest.XCTest.testCancelBeforeSubscription<A, B where B: OpenCombine.Publisher>(inputType: Type, expected: (extension in OpenCombineTests):CancelBeforeSubscriptionBehavior)"
    )
    XCTAssertTrue(TestCode().contains(typeName: Symbolicator.closureName(inExtension)))
  }

  /// A closure in a local function names the function it is local to: two tests' closures in
  /// their own local `test` functions are told apart.
  func testClosureName_inALocalFunction_namesTheFunctionItIsLocalTo() {
    let inLocalFunction =
      "closure #2 @Sendable (Swift.Result<(), Swift.Error>) -> () in closure #2 (GRDB.Database) throws -> () in test #1 <A where A: GRDB.DatabaseWriter>(A) throws -> () in GRDBTests.ValueObservationTests.testCancellableInvalidation2() throws -> ()"
    XCTAssertEqual(
      Symbolicator.closureName(inLocalFunction),
      "closure #2 in closure #2 in test #1 in GRDBTests.ValueObservationTests.testCancellableInvalidation2()")
    XCTAssertTrue(TestCode().contains(typeName: Symbolicator.closureName(inLocalFunction)))
  }
}
