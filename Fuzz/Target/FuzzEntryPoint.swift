/// libFuzzer's entry point: the first byte of an input chooses what the rest is fed to.
///
/// An even first byte sends the rest through the snapshot pipeline (``SnapshotPipeline``), with
/// analysis options taken from the byte's other bits; an odd one sends it to the baseline reader
/// (``BaselinePipeline``). Inputs that the readers refuse are fine; a crash, a trap, a
/// sanitizer report or a broken invariant (a failed `fuzzCheck`) is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size > 0 else { return 0 }
  let mode = data[0]
  let body = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
  if mode & 1 == 0 {
    SnapshotPipeline(options: mode).run(body)
  } else {
    BaselinePipeline().run(body)
  }
  return 0
}
