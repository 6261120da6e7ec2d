import HeapGraph

/// What a capture child sends its parent: the snapshot it took (stacks as program counters),
/// the ids of the objects the walk started from, and which stacks are closures' code addresses
/// rather than allocation stacks.
struct CapturedHeap {
  var snapshot: HeapSnapshot
  var startIDs: [Int64]
  var closureStackIDs: [Int64]
  /// Roots found in global data and in thread-local storage (indices into the snapshot's roots),
  /// named here by the variable at the parallel `variableRootSlots` address.
  var variableRoots: [Int64]
  var variableRootSlots: [UInt64]

  func binaryBytes() -> [UInt8] {
    var writer = BinaryWriter()
    writer.array(startIDs)
    writer.array(closureStackIDs)
    writer.array(variableRoots)
    writer.array(variableRootSlots)
    snapshot.write(into: &writer)
    return writer.bytes
  }

  init(snapshot: HeapSnapshot, startIDs: [Int64], closureStackIDs: [Int64], variableRoots: [Int64] = [], variableRootSlots: [UInt64] = []) {
    self.snapshot = snapshot
    self.startIDs = startIDs
    self.closureStackIDs = closureStackIDs
    self.variableRoots = variableRoots
    self.variableRootSlots = variableRootSlots
  }

  init(binaryBytes bytes: [UInt8]) throws(BinaryDecodingError) {
    var reader = BinaryReader(bytes)
    startIDs = try reader.array()
    closureStackIDs = try reader.array()
    variableRoots = try reader.array()
    variableRootSlots = try reader.array()
    snapshot = try HeapSnapshot(reading: &reader)
    guard variableRoots.count == variableRootSlots.count, variableRoots.allSatisfy({ (0..<Int64(snapshot.roots.count)).contains($0) })
    else { throw BinaryDecodingError(message: "the capture's variable roots do not match its snapshot's roots") }
    try reader.expectEnd(after: "the capture")
  }

  /// The snapshot with its stacks symbolized in this process: allocation stacks hold return
  /// addresses (the call is the instruction before), a closure's stack its code address.
  func symbolicated() -> HeapSnapshot {
    let closures = Set(closureStackIDs)
    var symbolicated = snapshot
    symbolicated.replaceStackFrames { stack in
      if closures.contains(stack.id) {
        return stack.frames.map { frame in
          var symbolized = Symbolicator.shared.frame(at: UInt(frame.pc ?? 0))
          symbolized.symbol = symbolized.symbol.map(Symbolicator.closureName)
          return symbolized
        }
      }
      return Symbolicator.shared.frames(ofReturnAddresses: stack.frames.map { UInt($0.pc ?? 0) })
    }
    // The elements of a global collection are roots of one slot: its variable is looked up once.
    var names: [UInt64: String?] = [:]
    for (root, slot) in zip(variableRoots, variableRootSlots) {
      if names[slot] == nil { names[slot] = Symbolicator.shared.variableName(at: UInt(slot)) }
      guard let name = names[slot]! else { continue }
      let label = snapshot.roots[Int(root)].label ?? ""
      if snapshot.roots[Int(root)].kind == .threadLocal {
        // The child labels a thread-local root by its thread: `main thread` becomes `App.current (main thread)`.
        symbolicated.relabelRoot(at: Int(root), label: "\(name) (\(label))")
      } else {
        // The child labels a global root `0x<slot>`, then the element's path when a collection holds it.
        symbolicated.relabelRoot(at: Int(root), label: name + label.drop { $0 != "[" })
      }
    }
    return symbolicated
  }

  /// The snapshot id of each captured object, by address.
  var objectIDsByAddress: [UInt: Int64] {
    var ids: [UInt: Int64] = [:]
    for index in 0..<snapshot.objectCount {
      let object = snapshot.object(at: index)
      if let address = object.address { ids[UInt(address)] = object.id }
    }
    return ids
  }
}
