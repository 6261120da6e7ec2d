extension HeapProfile {
  /// The heap profile of a snapshot's objects: every allocation of the snapshot (closure values
  /// and the places tasks wait at, which are no allocations, left out, as object counts leave
  /// them out) by type and allocation stack, with its size (objects of unknown size count no
  /// bytes). A snapshot holds what is alive, with no history of what was freed, so the
  /// `alloc_*` values equal the `inuse_*` ones. The time is the snapshot's `createdAt`, the
  /// comment its process; no mapping and no mangled name is known. Sites are in the order of
  /// their type names, then of their stacks' ids, so that the order of the snapshot's records
  /// does not change the profile.
  ///
  /// ```swift
  /// let profile = HeapProfile(snapshot: try HeapSnapshot(jsonBytes: FileBytes.read("app.heapsnapshot.json")))
  /// print(profile.objectCount, profile.byteCount)
  /// ```
  public init(snapshot: HeapSnapshot) {
    // Each (stack, type) pair once, in the order first seen, with its totals.
    var groupByKey: [UInt64: Int] = [:]
    var groups: [(stack: Int32, type: Int32, objects: Int, bytes: Int)] = []
    for index in 0..<snapshot.objectCount {
      // A closure value or a suspension point: a node with no allocation of its own.
      if snapshot.objectKinds[index] == .closureContext && snapshot.objectAddresses[index] == 0 { continue }
      let (stack, type) = (snapshot.objectStacks[index], snapshot.objectTypes[index])
      let key = UInt64(UInt32(bitPattern: stack)) << 32 | UInt64(UInt32(bitPattern: type))
      let size = max(Int(snapshot.objectSizes[index]), 0)
      if let group = groupByKey[key] {
        groups[group].objects += 1
        groups[group].bytes.addSaturating(size)
      } else {
        groupByKey[key] = groups.count
        groups.append((stack, type, 1, size))
      }
    }
    // Type names are compared once each, then sites by their type's rank and stack id.
    var typeRanks = [Int](repeating: 0, count: snapshot.typeNames.count)
    let byName = (0..<snapshot.typeNames.count).sorted { snapshot.typeNames[Int32($0)] < snapshot.typeNames[Int32($1)] }
    for (rank, type) in byName.enumerated() { typeRanks[type] = rank }
    func stackID(_ stack: Int32) -> Int64 { stack < 0 ? .min : snapshot.stacks[Int(stack)].id }
    groups.sort { (typeRanks[Int($0.type)], stackID($0.stack)) < (typeRanks[Int($1.type)], stackID($1.stack)) }
    let sites = groups.map { group in
      Site(
        typeName: snapshot.typeNames[group.type], frames: group.stack < 0 ? nil : snapshot.stacks[Int(group.stack)].frames,
        objects: group.objects, bytes: group.bytes)
    }
    self.init(
      sites: sites, timeNanos: snapshot.metadata.createdAt.flatMap(Self.unixNanoseconds(iso8601:)),
      comments: snapshot.metadata.process.map { ["heap snapshot of \($0)"] } ?? [])
  }

  /// `2026-11-22T10:00:00Z` (a fraction of a second and an offset such as `+01:00` allowed) in
  /// nanoseconds since 1970, or `nil` when it is no such time.
  package static func unixNanoseconds(iso8601 text: String) -> Int64? {
    let characters = Array(text.utf8)
    func number(_ range: Range<Int>) -> Int? {
      guard range.upperBound <= characters.count, !range.isEmpty else { return nil }
      var value = 0
      for character in characters[range] {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(character) else { return nil }
        value = value * 10 + Int(character - UInt8(ascii: "0"))
      }
      return value
    }
    guard characters.count >= 19, characters[4] == UInt8(ascii: "-"), characters[7] == UInt8(ascii: "-"),
      characters[10] == UInt8(ascii: "T") || characters[10] == UInt8(ascii: " "), characters[13] == UInt8(ascii: ":"),
      characters[16] == UInt8(ascii: ":"), let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
      let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
      (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
    else { return nil }
    var position = 19
    var nanoseconds = 0
    if position < characters.count, characters[position] == UInt8(ascii: ".") {
      let start = position + 1
      position = start
      while position < characters.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(characters[position]) { position += 1 }
      guard position > start else { return nil }
      let digits = characters[start..<min(position, start + 9)]
      nanoseconds = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
      for _ in digits.count..<9 { nanoseconds *= 10 }
    }
    var offsetSeconds = 0
    let isUTC = position == characters.count - 1 && characters[position] | 0x20 == UInt8(ascii: "z")
    if !isUTC {
      guard position + 6 == characters.count, characters[position] == UInt8(ascii: "+") || characters[position] == UInt8(ascii: "-"),
        characters[position + 3] == UInt8(ascii: ":"), let hours = number(position + 1..<position + 3),
        let minutes = number(position + 4..<position + 6)
      else { return nil }
      offsetSeconds = (hours * 3600 + minutes * 60) * (characters[position] == UInt8(ascii: "-") ? -1 : 1)
    }
    // Days since 1970-01-01 of the proleptic Gregorian date, counted in 400-year eras from March.
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    let days = era * 146_097 + dayOfEra - 719_468
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
    return Int64(seconds) * 1_000_000_000 + Int64(nanoseconds)
  }
}
