import HeapGraph

extension RootedHeap {
  /// Adds what libdispatch and the main run loop hold until it runs (``PendingDispatchWork``,
  /// ``RunLoopBlocks``, ``RunLoopTimers``) as roots of kind `runtime`, labelled by what holds
  /// it, when it holds what the walk captured: the closures of pending blocks whose context the
  /// walk captured or refers to a captured object itself (a closure that captures `self` and a
  /// value), and the tasks and timers that lead to a captured object within a few references.
  /// What is not captured yet is walked from there. A block's context is only looked into one
  /// level deep: a test process can hold thousands of pending blocks (XCTest's watchdogs), and
  /// walking what they reach made each check's capture 25 times slower. Each holder's retain of
  /// what it holds counts as a reference from a root.
  mutating func addPendingWorkRoots() {
    let captured = walk.idByAddress
    let reflector = walk.reader.reflector
    let keeping = { (context: UInt) in
      captured[context] != nil
        || reflector.reflect(address: context).references.contains { $0.ownership.isRetaining && captured[$0.target] != nil }
    }
    for work in PendingDispatchWork(keeping: keeping).work() + RunLoopBlocks.mainRunLoopWork(keeping: keeping) {
      guard let reference = walk.reader.reference(from: work) else { continue }
      let targetID: Int64
      if let id = walk.idByAddress[work.target] {
        targetID = id
      } else {
        // A block's context `keeping` accepted, or a task or timer that leads to what the walk captured.
        guard work.function != 0 || holdsCapturedObject(reference), let id = walk.visit(reference) else { continue }
        targetID = id
        walk.expandQueued()
      }
      referencesFromRoots[work.target, default: 0] += 1
      walk.builder.addRoot(object: walk.arrivalNode(of: reference, targetID: targetID), kind: .runtime, label: work.label)
    }
  }

  /// Whether the object `reference` targets leads, by at most four strong references and
  /// through at most 64 objects, to an object the walk captured: a task's closure holds its
  /// captures through a context, a timer's through its block.
  private func holdsCapturedObject(_ reference: ObjectReference) -> Bool {
    var level = [(reference.targetAddress, reference.targetKind)]
    var seen: Set<UInt> = [reference.targetAddress]
    for _ in 0..<4 {
      var next: [(UInt, HeapObjectKind)] = []
      for (address, kind) in level {
        for target in walk.allReferences(of: address, kind: kind).references where target.ownership.isRetaining {
          if walk.idByAddress[target.targetAddress] != nil { return true }
          guard seen.count < 64, seen.insert(target.targetAddress).inserted else { continue }
          next.append((target.targetAddress, target.targetKind))
        }
      }
      level = next
    }
    return false
  }
}
