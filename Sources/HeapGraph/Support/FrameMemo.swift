/// What was worked out once per frame of a snapshot's stacks, for analyses that read every frame
/// of every stack: the stacks of a process share most of their frames (a test runner's and the
/// framework's under every allocation), and a frame's answer depends on the frame alone.
///
/// Frames are told apart by their program counter, and the frames found there are compared in
/// full before an answer is reused (cheap: frames read from one snapshot share their strings'
/// storage), so frames of several processes, or without a program counter, are answered right.
/// One program counter has several frames where code was inlined (``StackFrame/inlined``): each
/// keeps its answer.
///
/// ```swift
/// var written = FrameMemo<Bool>()
/// let isWritten = written.value(for: frame) { $0.isWrittenCode }
/// ```
package struct FrameMemo<Value> {
  private var answers: [UInt64: [(frame: StackFrame, value: Value)]] = [:]

  package init() {}

  /// The answer for `frame`: remembered, or `answer(frame)`.
  package mutating func value(for frame: StackFrame, _ answer: (StackFrame) -> Value) -> Value {
    guard let pc = frame.pc, pc != 0 else { return answer(frame) }
    if let known = answers[pc]?.first(where: { $0.frame == frame }) { return known.value }
    let value = answer(frame)
    answers[pc, default: []].append((frame, value))
    return value
  }
}
