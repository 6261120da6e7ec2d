import HeapGraph
import LeakTestSupport
import XCTest

/// Leak groups are made by what leaked, never by ids or addresses: the entry is the object the
/// checked package's code made, instances of one structure form one group whatever their ids,
/// and a different entry type is a different group.
final class LeakGroupingTests: XCTestCase {
  private static let package = "/src/app"
  private let ownCode = OwnCode(packageDirectory: LeakGroupingTests.package)

  /// A frame of the package's own test helper, or of a dependency checked out under `.build`.
  private static func own(_ symbol: String, line: Int) -> StackFrame {
    StackFrame(symbol: symbol, file: package + "/Tests/AppTests/Helpers.swift", line: line)
  }

  private static func dependency(_ symbol: String, line: Int) -> StackFrame {
    StackFrame(symbol: symbol, file: package + "/.build/checkouts/nio/Sources/NIO/Pipeline.swift", line: line)
  }

  /// `instances` leaked test channels, each made by the package's helper with a pipeline of
  /// two contexts (`head.next → tail`, `tail.prev → head`, each context's `pipeline`, the
  /// pipeline's `channel`): one strongly connected component per channel, with object ids
  /// given by `ids` (a permutation of `1...(5 * instances)`).
  private func channels(
    _ instances: Int, ids: [Int64], channelType: String = "NIO.TestChannel", extraEmbedded: Bool = false
  ) -> ObjectGraph {
    var builder = HeapSnapshot.Builder()
    let helper = Self.own("AppTests.Client.execute(uri: Swift.String) async throws -> AppTests.Response", line: 110)
    let channelInit = Self.dependency("NIO.TestChannel.init() -> NIO.TestChannel", line: 278)
    let pipelineInit = Self.dependency("NIO.Pipeline.init(channel: NIO.Channel) -> NIO.Pipeline", line: 1064)
    let test = Self.own("AppTests.RouterTests.testRoute() async throws -> ()", line: 12)
    builder.addStack(id: 1, frames: [channelInit, helper, test])
    builder.addStack(id: 2, frames: [pipelineInit, channelInit, helper, test])
    builder.addStack(
      id: 3, frames: [Self.dependency("NIO.Context.init() -> NIO.Context", line: 40), pipelineInit, channelInit, helper, test])
    var next = 0
    func add(_ type: String, stack: Int64) -> Int64 {
      defer { next += 1 }
      builder.addObject(id: ids[next], type: type, address: UInt64(ids[next]) * 0x100, size: 64, stack: stack)
      return ids[next]
    }
    for instance in 0..<instances {
      let type = extraEmbedded && instance == instances - 1 ? "NIO.EmbeddedChannel" : channelType
      let channel = add(type, stack: 1)
      let pipeline = add("NIO.Pipeline", stack: 2)
      let head = add("NIO.Context", stack: 3)
      let tail = add("NIO.Context", stack: 3)
      let handler = add("NIO.Handler", stack: 3)
      for (from, to, label) in [
        (channel, pipeline, "_pipeline"), (pipeline, channel, "channel"), (pipeline, head, "head"), (pipeline, tail, "tail"),
        (head, tail, "next"), (tail, head, "prev"), (head, pipeline, "pipeline"), (tail, pipeline, "pipeline"),
        (tail, handler, "handler"),
      ] {
        builder.addReference(from: from, to: to, label: label, ownership: .strong)
      }
    }
    return ObjectGraph(builder.snapshot)
  }

  private func groups(_ graph: ObjectGraph) -> [LeakAnalysis.LeakGroup] {
    HeapAnalysis(graph: graph, options: .init(rootsAreComplete: true, ownCode: ownCode)).leaks.leakGroups
  }

  /// A permutation of `1...count`, the same for the same seed.
  private func permutation(of count: Int, seed: UInt64) -> [Int64] {
    var generator = SeededGenerator(seed: seed)
    return Array(1...Int64(count)).shuffled(using: &generator)
  }

  func testInstancesOfOneLeak_withShuffledIds_areOneGroupWithOneFingerprint() {
    let results = (0..<12).map { seed in groups(channels(6, ids: permutation(of: 30, seed: UInt64(seed)))) }
    for groups in results {
      XCTAssertEqual(groups.count, 1, "\(groups.map(\.summary))")
      XCTAssertEqual(groups.first?.instanceCount, 6)
      XCTAssertEqual(groups.first?.objectCount, 30)
    }
    XCTAssertEqual(Set(results.map { $0.map(\.fingerprint) }).count, 1, "the same fingerprint for every permutation")
    XCTAssertEqual(Set(results.map { $0.map(\.summary) }).count, 1)
  }

  func testEntry_isTheObjectThePackagesCodeMade_andTheSummaryReadsFromIt() throws {
    let group = try XCTUnwrap(groups(channels(2, ids: Array(1...10).reversed())).first)
    XCTAssertEqual(group.entryTypeName, "NIO.TestChannel")
    XCTAssertEqual(group.summary, "NIO.TestChannel._pipeline -> NIO.Pipeline.channel -> NIO.TestChannel")
    XCTAssertEqual(group.entryCycleElements.map(\.typeName), ["NIO.TestChannel", "NIO.Pipeline"])
    XCTAssertTrue(group.isOwn)
  }

  func testSameCycleLabels_differentEntryType_areDifferentGroups() {
    let groups = groups(channels(3, ids: Array(1...15), extraEmbedded: true))
    XCTAssertEqual(
      Set(groups.map { "\($0.instanceCount) × \($0.entryTypeName)" }), ["2 × NIO.TestChannel", "1 × NIO.EmbeddedChannel"])
    XCTAssertEqual(Set(groups.map(\.fingerprint)).count, 2)
  }

  /// Without stacks, the entry is the smallest type name, read as before, and the fingerprint is
  /// the cycle's own: baselines written before entries were chosen still match.
  func testWithoutStacks_theEntryIsTheFirstTypeName_andTheFingerprintIsTheCyclesOwn() throws {
    var builder = HeapSnapshot.Builder()
    builder.addObject(id: 1, type: "App.Pet", address: 0x1000)
    builder.addObject(id: 2, type: "App.Owner", address: 0x2000)
    builder.addReference(from: 1, to: 2, label: "owner", ownership: .strong)
    builder.addReference(from: 2, to: 1, label: "pets[0]", ownership: .strong)
    let group = try XCTUnwrap(groups(ObjectGraph(builder.snapshot)).first)
    XCTAssertEqual(group.summary, "App.Owner.pets[0] -> App.Pet.owner -> App.Owner")
    XCTAssertEqual(group.fingerprint, Fingerprint(parts: ["leak", try XCTUnwrap(group.entryCycle).fingerprint.description]))
  }

  /// A dependency's leak that retains more is listed after one the package's own code made.
  func testGroupsThePackagesCodeMade_comeFirst() throws {
    var builder = HeapSnapshot.Builder()
    builder.addStack(id: 1, frames: [Self.dependency("NIO.Pool.grow() -> ()", line: 5)])
    builder.addStack(id: 2, frames: [Self.own("AppTests.makeCache() -> AppTests.Cache", line: 3)])
    builder.addObject(id: 1, type: "NIO.Pool", address: 0x1000, size: 4096, stack: 1)
    builder.addObject(id: 2, type: "AppTests.Cache", address: 0x2000, size: 32, stack: 2)
    let groups = groups(ObjectGraph(builder.snapshot))
    XCTAssertEqual(groups.map(\.summary), ["AppTests.Cache", "NIO.Pool"])
    XCTAssertEqual(groups.map(\.isOwn), [true, false])
  }

  func testOwnCode_isThePackagesFilesOutsideBuildFolders() {
    let code = OwnCode(packageDirectory: "/src/app/")
    func frame(_ file: String?, line: Int? = 1) -> StackFrame { StackFrame(symbol: "f", file: file, line: line) }
    XCTAssertTrue(code.contains(frame("/src/app/Tests/AppTests/Helpers.swift")))
    XCTAssertTrue(code.contains(frame("Helpers.swift")), "a file without a directory")
    XCTAssertFalse(code.contains(frame("../sysdeps/nptl/libc_start_call_main.h")), "glibc's, as its build saw it")
    XCTAssertFalse(code.contains(frame("/src/app/.build/checkouts/nio/Sources/X.swift")))
    XCTAssertFalse(code.contains(frame("/src/app/.build-release/x.swift")))
    XCTAssertFalse(code.contains(frame("/src/application/Sources/X.swift")), "a sibling directory")
    XCTAssertFalse(code.contains(frame("/home/build-user/swift/stdlib/public/core/Array.swift")))
    XCTAssertFalse(code.contains(frame("<compiler-generated>")))
    XCTAssertFalse(code.contains(frame("/src/app/Sources/X.swift", line: nil)))
    XCTAssertNil(
      OwnCode(packageDirectory: nil).firstOwnFrame(in: [frame("/x/Sources/a.swift"), frame("Feed.swift")]),
      "without a package directory nothing is the package's own: no file path decides anything")
    let dependency = frame("/src/app/.build/checkouts/nio/Sources/NIO/Pipeline.swift")
    let own = frame("/src/app/Sources/App/Server.swift")
    XCTAssertTrue(code.made([dependency, own]), "a dependency's initializer the package called")
    XCTAssertFalse(code.made([dependency, dependency, dependency, own]), "the package's main far below")
  }

  /// Every report of `run` points at the package's line that made the leak, not at the
  /// dependency's initializer that allocated the entry.
  func testRunReport_namesThePackagesLineThatMadeTheLeak() throws {
    let analysis = HeapAnalysis(graph: channels(2, ids: Array(1...10)), options: .init(rootsAreComplete: true, ownCode: ownCode))
    let report = RunReport(analyses: [("AppPackageTests.xctest (pid 7)", true, analysis)], suppressions: .standard)
    let leak = try XCTUnwrap(report.leaks.first)
    XCTAssertEqual(leak.ownSite?.line, 110)
    XCTAssertEqual(leak.members.first?.site?.line, 278, "the entry's own site stays: the dependency's initializer")
    let text = report.renderText()
    XCTAssertTrue(text.contains("made by this package's code at AppTests.Client.execute(uri:) (async) (Helpers.swift:110)"), text)
    XCTAssertTrue(
      report.renderJSON(exitStatus: 2).contains(
        #""ownSite": {"function": "AppTests.Client.execute(uri: Swift.String) async throws -> AppTests.Response", "file": "/src/app/Tests/AppTests/Helpers.swift", "line": 110}"#
      ))
    XCTAssertEqual(report.findings.first?.location?.line, 110, "SARIF, JUnit and Markdown locate the finding there")
    let html = report.renderHTML(command: "leak-detector run -- swift test")
    XCTAssertTrue(html.contains("Made by this package's code at <code>AppTests.Client.execute(uri:) (async)</code>"), html)
  }

  /// A leak that hundreds of tests made lists a few, readably, and counts the rest.
  func testTestList_isReadableAndShort() {
    let tests = (1...9).map { "AppTests.RouterTests.test\($0)(uri: Swift.String)" }
    XCTAssertEqual(
      RunReport.testList(tests, names: .readable(homeModule: "App")),
      "in tests AppTests.RouterTests.test1(uri:), AppTests.RouterTests.test2(uri:), AppTests.RouterTests.test3(uri:), "
        + "AppTests.RouterTests.test4(uri:), AppTests.RouterTests.test5(uri:) and 4 more")
  }
}
