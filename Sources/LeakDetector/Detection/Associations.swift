import CLeakRuntime

/// Objects attached to other objects under a key: the Swift-on-Linux analogue of
/// `objc_setAssociatedObject`, which the leak detector can see.
///
/// A strong association retains its value until it is replaced, removed, or its owner is
/// deallocated, and is an edge of the owner in the object graph, labelled `associated["key"]`.
/// A weak association does not retain its value. The side table never outlives owners: when an
/// owner is deallocated its associations are removed and their values released (the runtime's
/// `swift_deallocClassInstance` is interposed to learn of it). Thread-safe.
///
/// ```swift
/// Associations.set(operation, on: imageView, key: "operation")
/// RetainCycleDetector.cycles(from: imageView)
/// ```
/// ```text
/// ImageView.associated["operation"] -> LoadOperation.completion -> closure #1 in ImageView.load().capture #0: ImageView -> ImageView
/// ```
public enum Associations {
  /// How an association holds its value.
  public enum Policy: Sendable {
    /// Retains the value (`OBJC_ASSOCIATION_RETAIN`).
    case strong
    /// Does not retain the value; it reads as `nil` once the value is deallocated.
    case weak
  }

  /// Associates `value` with `owner` under `key`, replacing any previous value; `nil` removes it.
  public static func set(_ value: AnyObject?, on owner: AnyObject, key: String, policy: Policy = .strong) {
    installObserver
    let ownerAddress = UInt(bitPattern: Unmanaged.passUnretained(owner).toOpaque())
    let replaced: AssociationTable.Entry? = table.withLock { table in
      var entries = table.entries[ownerAddress] ?? AssociationTable.Owner(owner: owner)
      if entries.owner !== owner {  // a stale record of an object that lived at this address
        entries = AssociationTable.Owner(owner: owner)
      }
      let previous = entries.values.removeValue(forKey: key)
      if let value {
        entries.values[key] = policy == .strong ? .strong(value) : .weak(WeakReference(value))
        entries.order.removeAll { $0 == key }
        entries.order.append(key)
      } else {
        entries.order.removeAll { $0 == key }
      }
      table.entries[ownerAddress] = entries.values.isEmpty ? nil : entries
      return previous
    }
    _ = replaced  // released here, outside the lock
  }

  /// The value associated with `owner` under `key`, if any.
  public static func value(on owner: AnyObject, key: String) -> AnyObject? {
    let ownerAddress = UInt(bitPattern: Unmanaged.passUnretained(owner).toOpaque())
    return table.withLock { table in
      guard let entries = table.entries[ownerAddress], entries.owner === owner else { return nil }
      return entries.values[key]?.object
    }
  }

  /// Removes every association of `owner`.
  public static func removeAll(from owner: AnyObject) {
    let ownerAddress = UInt(bitPattern: Unmanaged.passUnretained(owner).toOpaque())
    let removed = table.withLock { $0.entries.removeValue(forKey: ownerAddress) }
    _ = removed  // released here, outside the lock
  }

  /// The strong associations of the object at `address`, in the order they were set.
  static func strongValues(ofObjectAt address: UInt) -> [(key: String, address: UInt)] {
    table.withLock { table in
      guard let entries = table.entries[address] else { return [] }
      return entries.order.compactMap { key in
        guard case .strong(let value) = entries.values[key] else { return nil }
        return (key, UInt(bitPattern: Unmanaged.passUnretained(value).toOpaque()))
      }
    }
  }

  private static let table = Locked(AssociationTable(), protectedAcrossFork: true)

  private static let installObserver: Void = {
    cleak_set_deallocation_observer { address in
      Associations.ownerWasDeallocated(address)
    }
  }()

  private static func ownerWasDeallocated(_ address: UInt) {
    // Called for every deallocated class instance: stay cheap when nothing is associated.
    let removed = table.withLock { table -> AssociationTable.Owner? in
      table.entries.isEmpty ? nil : table.entries.removeValue(forKey: address)
    }
    _ = removed  // the values are released here, outside the lock
  }
}

/// The side table behind ``Associations``.
private struct AssociationTable: @unchecked Sendable {
  enum Entry {
    case strong(AnyObject)
    case weak(WeakReference)

    var object: AnyObject? {
      switch self {
      case .strong(let object): object
      case .weak(let reference): reference.object
      }
    }
  }

  struct Owner {
    weak var owner: AnyObject?
    var values: [String: Entry] = [:]
    var order: [String] = []
  }

  var entries: [UInt: Owner] = [:]
}

/// A weak reference to an object, as a value.
struct WeakReference: @unchecked Sendable {
  weak var object: AnyObject?

  init(_ object: AnyObject) {
    self.object = object
  }
}
