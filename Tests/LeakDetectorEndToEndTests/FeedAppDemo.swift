import Foundation
import LeakTestSupport

/// The README's demo, `leak-detector-demo`: the package `Examples/FeedApp`, a package of its own
/// (so that this package's users get no demo among its products), built once per test run in
/// its own `.build`, as `Scripts/demo` builds it.
enum FeedAppDemo {
  /// Where the demo's package is.
  static let package = URL(fileURLWithPath: LeakTestSupport.directory(of: #filePath) + "/../../Examples/FeedApp").standardized.path

  private static let built = Result { try BuiltProgram.product("leak-detector-demo", ofPackageAt: package) }

  /// The built demo; the first call builds it.
  static func program() throws -> BuiltProgram { try built.get() }
}
