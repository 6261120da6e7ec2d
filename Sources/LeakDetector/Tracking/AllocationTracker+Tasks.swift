import CLeakRuntime

extension AllocationTracker {
  /// The tasks made through `swift_task_create` (`Task {}`, `Task.detached`, a task group's
  /// `addTask`) that have not completed, among the latest ``CLEAK_TASK_REGISTRY_CAPACITY`` made,
  /// with their creation stack and generation (of `generation` only, when given). Read in a
  /// capture child, where no task can complete or be freed meanwhile: a slot of a freed task
  /// holds an address that is no longer a task, or another task with another job id, and is
  /// dropped.
  ///
  /// A task waiting on a continuation that only it reaches is referred to by nothing else a
  /// capture reads: it is found here, and its leak with it.
  static func waitingTasks(inGeneration generation: Int?) -> [cleak_tracked_object] {
    guard ConcurrencyLayoutCheck.mismatch == nil else { return [] }
    return latestRegisteredTasks(inGeneration: generation).filter { entry in
      TaskReferences.isWaiting(entry.object) && TaskReferences.jobID(ofTask: entry.object) == Self.jobID(of: entry)
    }
  }

  /// The job id the registry noted for the task of `entry` when it was made.
  private static func jobID(of entry: cleak_tracked_object) -> UInt32 {
    UInt32(truncatingIfNeeded: entry.size)
  }

  /// The creation stacks of the tasks made in `generation` (among those the registry remembers)
  /// that have not completed, read from this process while its threads run: the kernel reads
  /// each task's words (``cleak_read_words_checked``), so a task freed meanwhile reads as
  /// something else and is left out. What a test's check asks before it captures anything.
  package static func unfinishedTaskStacks(inGeneration generation: Int) -> [UInt32] {
    let entries = latestRegisteredTasks(inGeneration: generation)
    let tasks = entries.map(\.object)
    guard !tasks.isEmpty else { return [] }
    typealias Task = ConcurrencyLayout.Task
    func words(at addresses: [UInt]) -> [UInt] {
      var words = [UInt](repeating: 0, count: addresses.count)
      cleak_read_words_checked(addresses, &words, addresses.count)
      return words
    }
    let metadata = words(at: tasks)
    let kinds = words(at: metadata)
    let jobFlags = words(at: tasks.map { $0 &+ Task.jobFlags })
    let status = words(at: tasks.map { $0 &+ Task.status })
    return tasks.indices.filter { index in
      metadata[index] != 0 && HeapObjectKind.of(kindWord: kinds[index]) == .task
        && UInt32(truncatingIfNeeded: jobFlags[index]) & Task.jobKindMask == Task.jobKindTask
        && Task.jobID(inFlagsWord: jobFlags[index]) == jobID(of: entries[index])
        && UInt32(truncatingIfNeeded: status[index]) & Task.statusIsComplete == 0
    }.map { entries[$0].stack }
  }

  /// The registry's latest entry for each address among those made in `generation` (in every
  /// generation when `nil`), latest first; each may name a task that has ended since, or whose
  /// address a later task took.
  private static func latestRegisteredTasks(inGeneration generation: Int?) -> [cleak_tracked_object] {
    // Room for the tasks made so far and a few made meanwhile (the copy stops when it is full).
    let room = min(cleak_task_registry_count() + 64, Int(CLEAK_TASK_REGISTRY_CAPACITY))
    var buffer = [cleak_tracked_object](repeating: cleak_tracked_object(), count: room)
    let count = buffer.withUnsafeMutableBufferPointer { cleak_task_registry_copy($0.baseAddress, $0.count) }
    var seen: Set<UInt> = []
    return buffer[..<count].reversed().filter { entry in  // the registry gives the oldest first
      (generation.map { Int(entry.generation) == $0 } ?? true) && seen.insert(entry.object).inserted
    }
  }
}
