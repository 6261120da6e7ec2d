import Synchronization

extension ReadableName {
  /// What a remembered answer is of.
  enum Question: Hashable, Sendable {
    case symbol, type, module, shortName
  }

  private struct Key: Hashable, Sendable {
    var question: Question
    var name: String
    var keepingModule: Bool
  }

  /// The answers given so far: a report names the same types and functions many times (one type
  /// per object of a large leak), and making a name readable costs microseconds. Forgotten past
  /// 65,536 names, so memory stays bounded.
  private static let memory = Mutex<[Key: String?]>([:])

  /// The remembered answer to `question` about `name`, or `answer()`'s, remembered.
  static func remembered(_ question: Question, _ name: String, _ keepingModule: Bool, _ answer: () -> String?) -> String? {
    let key = Key(question: question, name: name, keepingModule: keepingModule)
    if let known = memory.withLock({ $0[key] }) { return known }
    let value = answer()
    memory.withLock { memory in
      if memory.count >= 65_536 { memory.removeAll(keepingCapacity: true) }
      memory[key] = value
    }
    return value
  }
}
