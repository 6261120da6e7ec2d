import Foundation
import Testing
import XCTest

/// Where leak findings go: by default a test failure at the finding's location (XCTest's
/// `recordFailure`, or Swift Testing's `Issue.record`); known leaks and late deallocations are
/// notes, not failures. Replace the sink for a scope with `withLeakReporter(_:_:)`.
public enum LeakReporting {
  /// Receives a finding and where to report it.
  public typealias Reporter = @Sendable (_ finding: LeakFinding, _ file: String, _ line: Int) -> Void

  @TaskLocal static var reporter: Reporter?

  /// Reports `finding` at `file:line`: to the scoped reporter if one is set, else to the running
  /// test framework (`testCase` for XCTest, else the current Swift Testing test, else XCTest's
  /// current test, at `xcTestLocation` when the caller's is known).
  static func report(
    _ finding: LeakFinding, file: String, line: Int, testCase: XCTestCase?, xcTestLocation: (file: StaticString, line: UInt)? = nil
  ) {
    if let reporter { return reporter(finding, file, line) }
    let message = (finding.kind == .grew ? "Heap growth: " : "Leak detected: ") + finding.description
    switch finding.kind {
    case .leaked where Test.current != nil, .grew where Test.current != nil:
      Issue.record(
        Comment(rawValue: message),
        sourceLocation: SourceLocation(fileID: fileID(file), filePath: file, line: max(line, 1), column: 1))
    case .leaked, .grew:
      if let testCase {
        testCase.recordFailure(withDescription: message, inFile: file, atLine: line, expected: true)
      } else if let xcTestLocation {
        XCTFail(message, file: xcTestLocation.file, line: xcTestLocation.line)
      } else {
        XCTFail(message)
      }
    case .knownLeak, .deallocatedLate:
      print("\(file):\(line): note: \(finding.description)")
    }
  }

  /// Reports each finding where a person looks for it: the line that watched the object
  /// (`trackForLeaks`), else where it was allocated, else `location`.
  static func report(_ findings: [LeakFinding], otherwiseAt location: (file: String, line: Int), testCase: XCTestCase?) {
    for finding in findings {
      let place = finding.trackedAt ?? (finding.allocationSite?.file ?? location.file, finding.allocationSite?.line ?? location.line)
      report(finding, file: place.file, line: place.line, testCase: testCase)
    }
  }

  /// `/path/to/Module/File.swift` → `Module/File.swift`, as Swift Testing names files.
  private static func fileID(_ path: String) -> String {
    let parts = path.split(separator: "/")
    return parts.suffix(2).joined(separator: "/")
  }
}

/// Sends leak findings from `body` to `reporter` instead of failing tests, e.g. to test a leak
/// check itself or to collect findings.
///
/// ```swift
/// let collector = FindingCollector()  // your @unchecked Sendable class that appends under a lock
/// withLeakReporter(collector.reporter) {
///   withLeakChecking { LeakyViewModel().bindStrongly() }
/// }
/// XCTAssertEqual(collector.findings.map(\.finding.kind), [.leaked])
/// ```
public func withLeakReporter<Result>(_ reporter: @escaping LeakReporting.Reporter, _ body: () throws -> Result) rethrows -> Result {
  try LeakReporting.$reporter.withValue(reporter, operation: body)
}

/// The async form of `withLeakReporter(_:_:)`.
public func withLeakReporter<Result>(
  _ reporter: @escaping LeakReporting.Reporter, _ body: () async throws -> Result
) async rethrows -> Result {
  try await LeakReporting.$reporter.withValue(reporter, operation: body)
}
