extension HeapSnapshot {
  /// Assembles a snapshot object by object, as in-process capture and tests do.
  ///
  /// Ids are the caller's to choose and must be unique; references, roots and stacks must name
  /// objects and stacks that were added first. Breaking these rules is a programmer error and
  /// traps with a message, since a builder is fed by code, not by files (files go through
  /// ``HeapSnapshot/init(jsonBytes:)``, which reports such problems as errors).
  public struct Builder: Sendable {
    public private(set) var snapshot: HeapSnapshot
    private var indexByObjectID: [Int64: Int32] = [:]
    private var indexByStackID: [Int64: Int32] = [:]

    public init(metadata: Metadata = Metadata()) {
      snapshot = HeapSnapshot(metadata: metadata)
    }

    /// Adds an allocation stack that objects can name by `id`.
    public mutating func addStack(id: Int64, frames: [StackFrame]) {
      precondition(indexByStackID[id] == nil, "HeapSnapshot.Builder.addStack: stack id \(id) was already added")
      indexByStackID[id] = Int32(snapshot.stacks.count)
      snapshot.stacks.append(Stack(id: id, frames: frames))
    }

    /// Adds an object. `stack`, when given, must name a stack added with ``addStack(id:frames:)``;
    /// `kind` is what the object is, when the caller knows it (`nil`: not recorded).
    public mutating func addObject(
      id: Int64, type: String, address: UInt64? = nil, size: Int? = nil, generation: Int? = nil, stack: Int64? = nil,
      kind: ObjectKind? = nil
    ) {
      precondition(indexByObjectID[id] == nil, "HeapSnapshot.Builder.addObject: object id \(id) was already added")
      precondition(size.map { $0 >= 0 } ?? true, "HeapSnapshot.Builder.addObject: size must not be negative")
      var stackIndex: Int32 = -1
      if let stack {
        guard let index = indexByStackID[stack] else {
          preconditionFailure("HeapSnapshot.Builder.addObject: stack id \(stack) was not added; call addStack first")
        }
        stackIndex = index
      }
      indexByObjectID[id] = Int32(snapshot.objectIDs.count)
      snapshot.appendObject(
        id: id, typeIndex: snapshot.typeNames.intern(type), address: address ?? 0, size: size.map(Int64.init) ?? -1,
        generation: generation.map(Int64.init) ?? Int64.min, stackIndex: stackIndex, kind: kind)
    }

    /// Adds `bytes` to the size of an object that was added with a size: memory the object owns
    /// that is no object of the snapshot (the storage of its collections and strings).
    package mutating func addBytes(_ bytes: Int, toSizeOf object: Int64) {
      guard let index = indexByObjectID[object], snapshot.objectSizes[Int(index)] >= 0, bytes >= 0 else {
        preconditionFailure("HeapSnapshot.Builder.addBytes: object \(object) was not added with a size")
      }
      snapshot.objectSizes[Int(index)] += Int64(bytes)
    }

    /// Adds a reference between two objects that were already added.
    public mutating func addReference(from: Int64, to: Int64, label: String?, ownership: Ownership) {
      guard let source = indexByObjectID[from], let target = indexByObjectID[to] else {
        preconditionFailure("HeapSnapshot.Builder.addReference: object \(indexByObjectID[from] == nil ? from : to) was not added")
      }
      snapshot.appendReference(
        source: source, target: target, labelIndex: label.map { snapshot.labels.intern($0) } ?? -1, ownership: ownership)
    }

    /// Marks an object as held by something outside the heap.
    public mutating func addRoot(object: Int64, kind: RootKind, label: String? = nil) {
      precondition(indexByObjectID[object] != nil, "HeapSnapshot.Builder.addRoot: object \(object) was not added")
      snapshot.roots.append(Root(object: object, kind: kind, label: label))
    }
  }

  mutating func appendObject(
    id: Int64, typeIndex: Int32, address: UInt64, size: Int64, generation: Int64, stackIndex: Int32, kind: ObjectKind?
  ) {
    objectIDs.append(id)
    objectTypes.append(typeIndex)
    objectAddresses.append(address)
    objectSizes.append(size)
    objectGenerations.append(generation)
    objectStacks.append(stackIndex)
    objectKinds.append(kind)
  }

  mutating func appendReference(source: Int32, target: Int32, labelIndex: Int32, ownership: Ownership) {
    referenceSources.append(source)
    referenceTargets.append(target)
    referenceLabels.append(labelIndex)
    referenceOwnerships.append(ownership)
  }
}
