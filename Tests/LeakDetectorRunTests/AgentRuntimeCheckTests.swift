import HeapGraph
import LeakDetectorRun
import LeakTestSupport
import XCTest

/// Which processes the agent of `leak-detector run` refuses, and how it says why: a program with
/// the runtime linked in that it cannot hook (stripped, another release), a process with no Swift at all, a runtime of another release or another
/// build than the agent's; the refusal's file reads back, and the run report notes it.
final class AgentRuntimeCheckTests: XCTestCase {
  private let agentRuntime = AgentRuntimeCheck.Runtime(
    path: "/opt/swift/usr/lib/swift/linux/libswiftCore.so", buildID: BuildID([0xb5, 0x21, 0xf2, 0x5f, 0xde, 0xac, 0xf5, 0x04]),
    version: nil)
  private let compiler = SwiftVersion(major: 6, minor: 3, patch: 1)

  private func check(loaded: AgentRuntimeCheck.Runtime?, agent: AgentRuntimeCheck.Runtime?, compiler: SwiftVersion? = nil)
    -> AgentRuntimeCheck
  {
    AgentRuntimeCheck(
      program: "Server", executableNeedsSharedRuntime: true, executableHasSwiftCode: false, loadedRuntime: loaded, agentRuntime: agent,
      agentCompiler: compiler ?? self.compiler)
  }

  func testSameBuildOfTheRuntime_isChecked() {
    var loaded = agentRuntime
    loaded.version = SwiftVersion(major: 6, minor: 3)
    XCTAssertNil(check(loaded: loaded, agent: agentRuntime).refusalReason)
  }

  func testRuntimeLinkedIntoTheProgram_ofTheAgentsRelease_isChecked() {
    var linkedIn = check(loaded: agentRuntime, agent: agentRuntime)
    linkedIn.executableNeedsSharedRuntime = false
    linkedIn.executableHasSwiftCode = true
    linkedIn.executableRuntime = .init(hasSymbolTable: true, version: SwiftVersion(major: 6, minor: 3))
    XCTAssertNil(linkedIn.refusalReason)
  }

  func testRuntimeLinkedIntoTheProgram_strippedOrOfAnotherReleaseOrNotHookable_isRefusedSayingWhy() {
    var linkedIn = check(loaded: agentRuntime, agent: agentRuntime)
    linkedIn.executableNeedsSharedRuntime = false
    linkedIn.executableHasSwiftCode = true
    linkedIn.executableRuntime = .init(hasSymbolTable: false, version: nil)
    XCTAssertEqual(
      linkedIn.refusalReason,
      "it has its own copy of the Swift runtime linked in (built with --static-swift-stdlib) and its symbol table was stripped: "
        + "the agent finds that runtime's allocation functions by their symbols; check a build that keeps them (strip it after the check)")
    linkedIn.executableRuntime = .init(hasSymbolTable: true, version: SwiftVersion(major: 6, minor: 2))
    XCTAssertEqual(
      linkedIn.refusalReason,
      "it has its own copy of the Swift runtime linked in (built with --static-swift-stdlib), from Swift 6.2, and this agent was built "
        + "with Swift 6.3.1 for its runtime only; build leak-detector with the toolchain that built Server")
    linkedIn.executableRuntime = .init(
      hasSymbolTable: true, version: SwiftVersion(major: 6, minor: 3), hookFailure: "its symbol table lacks: swift_deallocObject")
    XCTAssertEqual(
      linkedIn.refusalReason,
      "it has its own copy of the Swift runtime linked in (built with --static-swift-stdlib), which the agent cannot hook: "
        + "its symbol table lacks: swift_deallocObject")
  }

  func testProgramWithoutSwift_isRefusedAsNotSwift() {
    var notSwift = check(loaded: agentRuntime, agent: agentRuntime)
    notSwift.executableNeedsSharedRuntime = false
    notSwift.executableHasSwiftCode = false
    XCTAssertEqual(
      notSwift.refusalReason,
      "it is not a Swift program (its executable neither needs the Swift runtime, libswiftCore.so, nor has Swift code); "
        + "name the Swift processes to check with --process")
  }

  func testAnotherBuildOfTheSameRelease_isRefusedNamingBothBuildsAndPaths() {
    let loaded = AgentRuntimeCheck.Runtime(
      path: "/opt/swift-6.3/usr/lib/swift/linux/libswiftCore.so", buildID: BuildID([0x01, 0x02, 0x0a, 0xff]),
      version: SwiftVersion(major: 6, minor: 3))
    XCTAssertEqual(
      check(loaded: loaded, agent: agentRuntime).refusalReason,
      "it runs on the Swift runtime /opt/swift-6.3/usr/lib/swift/linux/libswiftCore.so (Swift 6.3, build 01020aff), another build than "
        + "the one this agent was built with, /opt/swift/usr/lib/swift/linux/libswiftCore.so (Swift 6.3.1, build b521f25fdeacf504); "
        + "build leak-detector with the toolchain that built Server (Swift 6.3 at /opt/swift-6.3)")
  }

  func testAnotherRelease_isRefusedEvenWithoutTheAgentsRuntimeFile() {
    let loaded = AgentRuntimeCheck.Runtime(
      path: "/home/me/lib/libswiftCore.so", buildID: BuildID([0xaa]), version: SwiftVersion(major: 6, minor: 2))
    XCTAssertEqual(
      check(loaded: loaded, agent: nil).refusalReason,
      "it runs on the Swift runtime /home/me/lib/libswiftCore.so (Swift 6.2, build aa), and this agent was built with Swift 6.3.1 "
        + "for its runtime only; build leak-detector with the toolchain that built Server (Swift 6.2 at /home/me/lib)")
    XCTAssertEqual(
      check(loaded: loaded, agent: agentRuntime).refusalReason?.contains(
        "built with Swift 6.3.1 for its runtime only, /opt/swift/usr/lib/swift/linux/libswiftCore.so (build b521f25fdeacf504);"),
      true)
    var unknown = loaded
    unknown.version = nil
    unknown.buildID = nil
    XCTAssertEqual(
      check(loaded: unknown, agent: nil).refusalReason,
      "it runs on the Swift runtime /home/me/lib/libswiftCore.so (a release older than Swift 5.6, or unknown, build unknown), "
        + "and this agent was built with Swift 6.3.1 for its runtime only; build leak-detector with the toolchain that built Server "
        + "(at /home/me/lib)")
  }

  /// Without the agent's own runtime file, or a build id to compare, the release decides alone;
  /// a compiler newer than the version list knows compares builds only.
  func testWhatCannotBeCompared_refusesNothingOnItsOwn() {
    let sameRelease = AgentRuntimeCheck.Runtime(
      path: "/x/libswiftCore.so", buildID: BuildID([1]), version: SwiftVersion(major: 6, minor: 3))
    XCTAssertNil(check(loaded: sameRelease, agent: nil).refusalReason)
    var withoutBuildID = sameRelease
    withoutBuildID.buildID = nil
    XCTAssertNil(check(loaded: withoutBuildID, agent: agentRuntime).refusalReason)
    let newer = SwiftVersion(major: 6, minor: 5, orLater: true)
    var newerRuntime = agentRuntime
    newerRuntime.version = SwiftVersion(major: 6, minor: 7)
    XCTAssertNil(check(loaded: newerRuntime, agent: agentRuntime, compiler: newer).refusalReason)
    XCTAssertNotNil(check(loaded: sameRelease, agent: agentRuntime, compiler: newer).refusalReason)
  }

  func testVersions_readAsTheReleasesCallThemselves() {
    XCTAssertEqual(SwiftVersion(major: 6, minor: 3, patch: 1).description, "6.3.1")
    XCTAssertEqual(SwiftVersion(major: 6, minor: 3, patch: 0).description, "6.3")
    XCTAssertEqual(SwiftVersion(major: 6, minor: 3).description, "6.3")
    XCTAssertEqual(SwiftVersion(major: 6, minor: 5, orLater: true).description, "6.5 or later")
    XCTAssertTrue(SwiftVersion(major: 6, minor: 3, patch: 1).isSameMinorRelease(as: SwiftVersion(major: 6, minor: 3)))
    XCTAssertFalse(SwiftVersion(major: 6, minor: 3).isSameMinorRelease(as: SwiftVersion(major: 5, minor: 3)))
    XCTAssertGreaterThanOrEqual(SwiftVersion.compiler.major, 6)
    XCTAssertEqual(BuildID([0x0b, 0x52, 0x1f, 0x25, 0xfd, 0xea, 0xcf]).shortDescription, "0b521f25fdea")
  }

  func testRefusal_fileReadsBack_otherNamesAreNone() {
    let refusal = RunReport.Refusal(
      process: RunProtocol.ProcessDescription(arguments: ["/bin/sh", "-c", "a\nb"], processID: 4242), reason: "it is not\na Swift program")
    XCTAssertEqual(RunReport.Refusal.fileName(processID: 4242), "4242.refused")
    XCTAssertEqual(RunReport.Refusal.processID(ofFile: "4242.refused"), 4242)
    XCTAssertNil(RunReport.Refusal.processID(ofFile: "4242.exit.heapsnapshot.bin"))
    XCTAssertEqual(String(decoding: refusal.fileBytes, as: UTF8.self), "sh -c a b (pid 4242)\nit is not a Swift program\n")
    let readBack = RunReport.Refusal(fileBytes: refusal.fileBytes, processID: 4242)
    XCTAssertEqual(readBack?.processID, 4242)
    XCTAssertEqual(readBack?.message, "not checking sh -c a b (pid 4242): it is not a Swift program")
    XCTAssertNil(RunReport.Refusal(fileBytes: Array("sh\n".utf8), processID: 1))
    XCTAssertNil(RunReport.Refusal(fileBytes: [], processID: 1))
  }
}
