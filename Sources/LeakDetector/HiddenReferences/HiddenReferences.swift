/// References that keep objects alive where type metadata does not show them: what libraries
/// and the runtime store in memory reflection cannot describe (a task's closure, the handlers
/// libdispatch keeps for a source, the block of a work item, the blocks waiting on a queue or a
/// run loop, the blocks NotificationCenter keeps for its observers).
///
/// Each reader knows one such owner, by its type name or object kind, and reads only memory it
/// has checked; what it cannot read is left out, never guessed. The references it returns are
/// edges of the owner like any reflected one, labelled by what they are:
///
/// ```text
/// LeakDetectorTests.TaskOwner.task._task -> Task (strong)
/// Task.closure -> closure #1 in LeakDetectorTests.TaskOwner.start() (strong)
/// ```
struct HiddenReferences {
  var reflector: RuntimeReflector

  /// Whether a reader here knows objects of `typeName` and `kind`: tasks and the classes of
  /// ``classReaders``. Most objects have none, and pay for this one lookup only.
  static func hasReader(typeName: String, kind: HeapObjectKind) -> Bool {
    // The length first: hashing the name for the table costs more than the rest of a reflection.
    kind == .task
      || (kind == .classInstance && readTypeNameLengths.contains(typeName.utf8.count) && classReaders[typeName] != nil)
  }

  private static let readTypeNameLengths = Set(classReaders.keys.map(\.utf8.count)).sorted()

  /// The readers of classes, by type name: the one place that says which classes have hidden
  /// references. The unreadable targets of these classes' reflected fields (a work item's
  /// `_block`) are what the readers read, not problems to report.
  private static let classReaders: [String: @Sendable (HiddenReferences, UInt) -> [RawReference]] = [
    DispatchReferences.sourceTypeName: { _, address in DispatchReferences().references(ofSource: address) },
    DispatchReferences.workItemTypeName: { _, address in DispatchReferences().references(ofWorkItem: address) },
    PendingDispatchWork.queueTypeName: { _, address in PendingDispatchWork().references(ofQueue: address) },
    RunLoopBlocks.runLoopTypeName: { hidden, address in RunLoopBlocks(reflector: hidden.reflector).references(ofRunLoop: address) },
    NotificationCenterRegistrations.centerTypeName: { hidden, address in
      NotificationCenterRegistrations(reflector: hidden.reflector).references(ofCenter: address)
    },
    NotificationCenterRegistrations.tokenTypeName: { hidden, address in
      NotificationCenterRegistrations(reflector: hidden.reflector).references(ofToken: address)
    },
    TaskReferences.canaryTypeName: { _, address in TaskReferences.references(ofCanary: address) },
  ]

  /// The hidden references of the object at `address`, of `typeName` and `kind`, and what could
  /// not be read.
  func references(of address: UInt, typeName: String, kind: HeapObjectKind) -> (references: [RawReference], diagnostics: [String]) {
    if kind == .task { return TaskReferences(reflector: reflector).references(ofTask: address) }
    guard kind == .classInstance, let read = Self.classReaders[typeName] else { return ([], []) }
    return (read(self, address), [])
  }
}
