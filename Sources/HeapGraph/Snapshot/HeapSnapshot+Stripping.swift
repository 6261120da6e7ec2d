extension HeapSnapshot {
  /// The snapshot without what a user may not want to share (LeakCanary's strip-hprof
  /// analogue): the process's name, id and command line, the creation time, the program counters of stack frames (which
  /// reveal the memory layout), and the directories of source files (or the files altogether).
  /// Types, labels, ownership, generations and line numbers stay, so the analysis is unchanged
  /// (but for which code is the checked package's own, which needs the files' directories:
  /// ``OwnCode``).
  ///
  /// - Parameter keepingFileNames: keep `Feed.swift` (without its directory); otherwise drop files.
  public func stripped(keepingFileNames: Bool = true) -> HeapSnapshot {
    var copy = self
    copy.metadata.process = nil
    copy.metadata.processID = nil
    copy.metadata.arguments = nil
    copy.metadata.createdAt = nil
    copy.replaceStackFrames { stack in
      stack.frames.map { frame in
        var frame = frame
        frame.pc = nil
        // The compiler's marker is no path: it stays, so that thunks stay thunks.
        frame.file =
          keepingFileNames || frame.isCompilerGenerated ? frame.file.map { $0.split(separator: "/").last.map(String.init) ?? $0 } : nil
        return frame
      }
    }
    return copy
  }

  /// Replaces the frames of every stack with what `transform` makes of the stack (a capture
  /// symbolizes the program counters its child recorded).
  package mutating func replaceStackFrames(_ transform: (Stack) -> [StackFrame]) {
    for index in stacks.indices { stacks[index].frames = transform(stacks[index]) }
  }

  /// Replaces the label of the root at `index` (a capture names global roots by their variable).
  package mutating func relabelRoot(at index: Int, label: String) {
    roots[index].label = label
  }
}
