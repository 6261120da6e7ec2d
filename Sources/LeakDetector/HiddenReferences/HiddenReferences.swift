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
  /// ``readTypeNames``. Most objects have none, and pay for this one lookup only.
  static func hasReader(typeName: String, kind: HeapObjectKind) -> Bool {
    // The length first: hashing the name for the set costs more than the rest of a reflection.
    kind == .task
      || (kind == .classInstance && readTypeNameLengths.contains(typeName.utf8.count) && readTypeNames.contains(typeName))
  }

  private static let readTypeNameLengths = Set(readTypeNames.map(\.utf8.count)).sorted()

  /// The classes whose hidden references are read here: the unreadable targets of their
  /// reflected fields (a work item's `_block`) are what the readers read, not problems to report.
  static let readTypeNames: Set<String> = [
    DispatchReferences.sourceTypeName, DispatchReferences.workItemTypeName, PendingDispatchWork.queueTypeName,
    RunLoopBlocks.runLoopTypeName, NotificationCenterRegistrations.centerTypeName, NotificationCenterRegistrations.tokenTypeName,
  ]

  /// The hidden references of the object at `address`, of `typeName` and `kind`, and what could
  /// not be read.
  func references(of address: UInt, typeName: String, kind: HeapObjectKind) -> (references: [RawReference], diagnostics: [String]) {
    switch (kind, typeName) {
    case (.task, _):
      TaskReferences(reflector: reflector).references(ofTask: address)
    case (.classInstance, DispatchReferences.sourceTypeName):
      (DispatchReferences().references(ofSource: address), [])
    case (.classInstance, DispatchReferences.workItemTypeName):
      (DispatchReferences().references(ofWorkItem: address), [])
    case (.classInstance, PendingDispatchWork.queueTypeName):
      (PendingDispatchWork().references(ofQueue: address), [])
    case (.classInstance, RunLoopBlocks.runLoopTypeName):
      (RunLoopBlocks(reflector: reflector).references(ofRunLoop: address), [])
    case (.classInstance, NotificationCenterRegistrations.centerTypeName):
      (NotificationCenterRegistrations(reflector: reflector).references(ofCenter: address), [])
    case (.classInstance, NotificationCenterRegistrations.tokenTypeName):
      (NotificationCenterRegistrations(reflector: reflector).references(ofToken: address), [])
    default:
      ([], [])
    }
  }
}
