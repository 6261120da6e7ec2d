import Dispatch
import Foundation
import LeakDetector
import LeakTestSupport
import XCTest

/// A Dispatch source's handler that captures a value of a resilient type (an `AsyncStream`
/// continuation), whose context's layout is only known at run time, has its captures read where
/// they are.
final class DispatchSourceHandlersTests: XCTestCase {
  /// The Swift wrapper and the signal, as swift-service-lifecycle's UnixSignalsSequence keeps them.
  struct TrappedSource {
    var dispatchSource: DispatchSource
    var signal: Int32
  }

  private let queue = DispatchQueue(label: "DispatchSourceHandlersTests")

  override func setUpWithError() throws {
    try skipWhereThreadSanitizerWrapsDispatchBlocks()
  }

  /// The event handler of UnixSignalsSequence: it captures the stream's continuation (of a
  /// resilient type, so the context's layout is computed at run time and its metadata says its
  /// captures start at 0) and the source.
  func testHandlerCapturingAContinuation_readsEachCaptureAfterTheContextsHeader() throws {
    let trapped = TrappedSource(dispatchSource: try XCTUnwrap(DispatchSource.makeSignalSource(signal: SIGWINCH, queue: queue) as? DispatchSource), signal: SIGWINCH)
    var kept: AsyncStream<Int32>.Continuation?
    let stream = AsyncStream<Int32> { continuation in
      kept = continuation
      trapped.dispatchSource.setEventHandler { continuation.yield(trapped.signal) }
    }
    defer {
      trapped.dispatchSource.cancel()
      trapped.dispatchSource.resume()
    }
    let handler = try XCTUnwrap(reflect(trapped.dispatchSource).references.first { $0.label == "event handler" })
    let context = Unmanaged<AnyObject>.fromOpaque(try XCTUnwrap(UnsafeRawPointer(bitPattern: handler.targetAddress))).takeUnretainedValue()
    let reflection = reflect(context)
    XCTAssertEqual(reflection.diagnostics, [])
    XCTAssertEqual(
      reflection.references.map(\.description),
      [
        "capture #0: AsyncStream<Int32>.Continuation.storage -> Swift.AsyncStream<Swift.Int32>._Storage<> (strong)",
        "capture #1: TrappedSource.dispatchSource -> Dispatch.DispatchSource (strong)",
      ])
    withExtendedLifetime((stream, kept)) {}
  }
}
