import Foundation
import HeapGraph
import LeakDetectorRun
import LeakTestSupport
import XCTest

/// `leak-detector --version`: the version, then the Swift it was built with and the runtime it
/// runs on; reports name the plain version.
final class VersionTests: XCTestCase {
  func testVersion_namesTheToolsVersionTheSwiftItWasBuiltWithAndItsRuntime() throws {
    let result = try BuiltProgram("leak-detector").run(["--version"])
    XCTAssertEqual(result.status, 0, result.standardError)
    let lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
    XCTAssertEqual(lines.count, 3, result.standardOutput)
    let version = try XCTUnwrap(lines.first?.wholeMatch(of: /leak-detector (\d+\.\d+\.\d+)/)?.output.1, result.standardOutput)
    // The tests and the tool are built by one toolchain, and run on its runtime.
    let runtime = try SwiftRuntimeFile.loaded()
    XCTAssertEqual(
      lines[1], "built with Swift \(SwiftVersion.compiler); runtime \(runtime.path) (build \(runtime.buildID.prefix(12)))",
      result.standardOutput)
    XCTAssertNotNil(lines[1].wholeMatch(of: /built with Swift \d+\.\d+(\.\d+)?; runtime \/.+\/libswiftCore\.so \(build [0-9a-f]{12}\)/))
    XCTAssertEqual(lines[2], "")

    let snapshot = LeakTestSupport.directory() + "/Fixtures/fb-seven-nodes.json"
    let sarif = try BuiltProgram("leak-detector").run(["analyze", snapshot, "--format", "sarif"])
    XCTAssertTrue(sarif.standardOutput.contains("\"name\": \"leak-detector\", \"version\": \"\(version)\""), sarif.standardOutput)
  }
}
