import Dispatch
import Foundation
import HeapGraph
import LeakDetector
import LeakTestSupport
import XCTest

/// What a live Dispatch source's handlers capture is held by the source while libdispatch keeps
/// it registered (a signal or read source in its epoll backend, an armed timer in its timer
/// heaps): a root of kind `runtime` named by the source and the handler, until the source is
/// cancelled. And a closure that captures a value of a resilient type (an `AsyncStream`
/// continuation), whose context's layout is only known at run time, has its captures read where
/// they are.
final class DispatchSourceHandlersTests: XCTestCase {
  /// What a handler captures.
  final class Listener: @unchecked Sendable {
    var events = 0
  }

  /// The Swift wrapper and the signal, as swift-service-lifecycle's UnixSignalsSequence keeps them.
  struct TrappedSource {
    var dispatchSource: DispatchSource
    var signal: Int32
  }

  private let queue = DispatchQueue(label: "DispatchSourceHandlersTests")

  override func setUpWithError() throws {
    try skipWhereThreadSanitizerWrapsDispatchBlocks()
    XCTAssertNil(DispatchLayoutCheck.mismatch.map(DispatchLayoutCheck.diagnostic), "libdispatch's layouts are checked")
  }

  func testLayoutCheck_thisLibdispatch_matchesEveryFact() {
    let mismatches = DispatchLayoutCheck.facts().filter { !$0.matches }
    XCTAssertEqual(mismatches, [])
  }

  func testLayoutCheck_wrongExpectation_saysWhatWasFoundAndThatDispatchStructuresWereNotRead() throws {
    var facts = DispatchLayoutCheck.facts()
    let index = try XCTUnwrap(facts.firstIndex { $0.name == "a Dispatch source's name" })
    facts[index].expected = "Dispatch timer source"
    let mismatch = try XCTUnwrap(RuntimeLayoutCheck.firstMismatch(in: facts))
    XCTAssertEqual(
      DispatchLayoutCheck.diagnostic(mismatch),
      "libdispatch's layouts are not the ones this build reads (Swift 6.3.1): a Dispatch source's name is Dispatch data-add source,"
        + " expected Dispatch timer source; what Dispatch sources and queues hold was not read")
  }

  func testSignalSource_whatItsHandlersCapture_isHeldByTheSource_untilCancelled() throws {
    let listener = Listener()
    let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: queue)
    source.setEventHandler { listener.events += 1 }
    source.setCancelHandler { listener.events = -1 }
    source.resume()
    let handlers = ["Dispatch signal source (SIGWINCH) event handler", "Dispatch signal source (SIGWINCH) cancel handler"]
    XCTAssertTrue(eventually { holders(of: listener) == Set(handlers) }, "\(holders(of: listener))")
    source.cancel()
    XCTAssertTrue(eventually { holders(of: listener).isEmpty }, "\(holders(of: listener))")
  }

  func testTimerSource_armed_holdsWhatItsHandlerCaptures_untilCancelled() throws {
    let listener = Listener()
    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.setEventHandler { listener.events += 1 }
    timer.schedule(deadline: .now() + 3600, repeating: 3600)
    timer.resume()
    XCTAssertTrue(eventually { holders(of: listener) == ["Dispatch timer source event handler"] }, "\(holders(of: listener))")
    timer.cancel()
    XCTAssertTrue(eventually { holders(of: listener).isEmpty }, "\(holders(of: listener))")
  }

  func testReadSource_onAPipe_holdsWhatItsHandlerCaptures_namedByItsDescriptor() throws {
    var ends: [Int32] = [0, 0]
    XCTAssertEqual(pipe(&ends), 0)
    defer { ends.forEach { close($0) } }
    let listener = Listener()
    let source = DispatchSource.makeReadSource(fileDescriptor: ends[0], queue: queue)
    source.setEventHandler { listener.events += 1 }
    source.resume()
    defer { source.cancel() }
    XCTAssertTrue(
      eventually { holders(of: listener) == ["Dispatch read source (fd \(ends[0])) event handler"] }, "\(holders(of: listener))")
  }

  func testSourceNeverResumed_holdsNothingItself() throws {
    let listener = Listener()
    let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: queue)
    source.setEventHandler { listener.events += 1 }
    defer {
      source.cancel()
      source.resume()
    }
    XCTAssertEqual(holders(of: listener), [])
  }

  /// The event handler of UnixSignalsSequence: it captures the stream's continuation (of a
  /// resilient type, so the context's layout is computed at run time and its metadata says its
  /// captures start at 0) and the source.
  func testHandlerCapturingAContinuation_readsEachCaptureAfterTheContextsHeader() throws {
    let source = try XCTUnwrap(DispatchSource.makeSignalSource(signal: SIGWINCH, queue: queue) as? DispatchSource)
    let trapped = TrappedSource(dispatchSource: source, signal: SIGWINCH)
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

  // MARK: - Helpers

  /// The labels of the runtime roots from which `object` is reachable in a capture of the live
  /// heap.
  private func holders(of object: AnyObject) -> Set<String> {
    let heap = AllocationTracker.captureLiveHeap(including: [object])
    XCTAssertNil(heap.failure)
    let graph = ObjectGraph(heap.snapshot)
    guard let id = heap.objectIDs[address(of: object)], let target = graph.node(forObjectID: id) else { return [] }
    var found: Set<String> = []
    for root in graph.roots where root.kind == .runtime {
      var seen: Set<Int> = [root.node]
      var queue = [root.node]
      while let node = queue.popLast(), !seen.contains(target) {
        for edge in graph.strongReferences(of: node) where seen.insert(edge.target).inserted { queue.append(edge.target) }
      }
      if seen.contains(target) { found.insert(root.label ?? "") }
    }
    return found
  }
}
