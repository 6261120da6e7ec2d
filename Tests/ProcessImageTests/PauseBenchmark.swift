import Foundation
import LeakTestSupport
import ProcessImage
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// Not a test: the measurement `Benchmarks/process-image-pause.sh` runs, skipped unless
/// `PROCESS_IMAGE_BENCHMARK_MEGABYTES` lists heap sizes (`100,1024`). For each size it starts the
/// fixture with that much writable memory touched, captures it (the pause, the whole capture),
/// dumps it with gcore and reads the core, and prints one line.
final class PauseBenchmark: XCTestCase {
  func testMeasurePausesAndCoreReads() throws {
    guard let sizes = ProcessInfo.processInfo.environment["PROCESS_IMAGE_BENCHMARK_MEGABYTES"] else {
      throw XCTSkip("a measurement, run by Benchmarks/process-image-pause.sh")
    }
    let directory = try makeTemporaryDirectory(prefix: "process-image-benchmark")
    let executable = try ThreadedTarget.compile(into: directory)
    let gcore = try ExternalTool("gcore", advice: "install Debian's gdb")
    for megabytes in sizes.split(separator: ",").compactMap({ Int($0) }) {
      let target = try ThreadedTarget.start(executable: executable, arguments: ["--heap-megabytes", String(megabytes)])
      XCTAssertTrue(target.isReady)
      var pauses: [Duration] = []
      var captures: [Duration] = []
      var copied: UInt = 0
      for _ in 0..<3 {
        let clock = ContinuousClock()
        var image: ProcessImage?
        captures.append(try clock.measure { image = try ProcessImage.capture(processID: target.processID) })
        pauses.append(image!.pauseDuration!)
        copied = image!.segments.filter(\.isWritable).reduce(0) { $0 + $1.count }
      }
      let prefix = "\(directory)/core-\(megabytes)"
      _ = try gcore.run(["-o", prefix, String(target.processID)])
      let core = "\(prefix).\(target.processID)"
      var reads: [Duration] = []
      var scans: [Duration] = []
      for _ in 0..<3 {
        var image: ProcessImage?
        reads.append(try ContinuousClock().measure { image = try ProcessImage.read(coreFile: core) })
        XCTAssertEqual(image?.readWord(at: target.globalAddress), ThreadedTarget.globalValue)
        // The core's bytes are mapped, not read: a scan that touches every page pays for them.
        var sum: UInt8 = 0
        scans.append(
          ContinuousClock().measure {
            for segment in image?.segments ?? [] {
              guard let contents = segment.contents else { continue }
              for offset in stride(from: 0, to: contents.count, by: 4096) { sum &+= contents[offset] }
            }
          })
        XCTAssertGreaterThanOrEqual(sum, 0)
      }
      try? FileManager.default.removeItem(atPath: core)
      print(
        "process-image benchmark: heap \(megabytes) MiB, writable copied \(copied >> 20) MiB: "
          + "pause \(Self.milliseconds(pauses)), whole capture \(Self.milliseconds(captures)), core read \(Self.milliseconds(reads)), "
          + "then touching every page \(Self.milliseconds(scans))")
    }
  }

  /// The durations in milliseconds, `min/median/max ms`.
  private static func milliseconds(_ durations: [Duration]) -> String {
    let sorted = durations.sorted().map { duration in
      String(format: "%.1f", Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15)
    }
    return "\(sorted.first!)/\(sorted[sorted.count / 2])/\(sorted.last!) ms"
  }
}
