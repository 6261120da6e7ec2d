#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension HeapProfile {
  /// The profile in pprof's model: one sample per site, the largest (`inuse_space`, then
  /// `alloc_space`) first; a location per distinct frame (by its address when known), a
  /// function per distinct name, mangled name and file, a mapping per image a location falls in.
  /// The frames of one address with inlined code (``StackFrame/inlined``) are one location with
  /// a line per function, innermost first, as pprof models inlining. The same profile always
  /// gives the same model.
  public var pprofProfile: PprofProfile {
    var profile = PprofProfile()
    profile.sampleTypes = Self.sampleTypes
    profile.defaultSampleType = Self.defaultSampleType
    profile.periodType = .init(type: "space", unit: "bytes")
    profile.period = Int64(samplingInterval)
    profile.timeNanos = timeNanos ?? 0
    profile.comments = comments

    // Frames with an address are told apart by it (one address has one symbolization), others by
    // what they say.
    var locationIDsByAddress: [UInt64: UInt64] = [:]
    var locationIDs: [[StackFrame]: UInt64] = [:]
    var functionIDs: [PprofProfile.Function: UInt64] = [:]
    let images = images.sorted { $0.start < $1.start }
    var imageOfLocation: [Int?] = []

    func functionID(_ frame: StackFrame, name: String) -> UInt64 {
      let key = PprofProfile.Function(
        id: 0, name: name, systemName: frame.inlined ? "" : frame.pc.flatMap { mangledNames[$0] } ?? "", filename: frame.file ?? "")
      if let id = functionIDs[key] { return id }
      var function = key
      function.id = UInt64(profile.functions.count + 1)
      profile.functions.append(function)
      functionIDs[key] = function.id
      return function.id
    }
    // `frames`: the functions inlined at one address, then the one that holds the code.
    func locationID(_ frames: [StackFrame]) -> UInt64 {
      let frame = frames[frames.count - 1]
      if let pc = frame.pc, let id = locationIDsByAddress[pc] { return id }
      if frame.pc == nil, let id = locationIDs[frames] { return id }
      let id = UInt64(profile.locations.count + 1)
      let lines: [PprofProfile.Line] = frames.compactMap { frame in
        guard frame.symbol != nil || frame.pc == nil else { return nil }
        let function = functionID(frame, name: frame.symbol ?? frame.description)
        return .init(functionID: function, line: Int64(frame.line ?? 0), column: Int64(frame.column ?? 0))
      }
      profile.locations.append(.init(id: id, address: frame.pc ?? 0, lines: lines))
      imageOfLocation.append(frame.pc.flatMap { Self.image(containing: $0, in: images) })
      if let pc = frame.pc { locationIDsByAddress[pc] = id } else { locationIDs[frames] = id }
      return id
    }

    let noStack = StackFrame(symbol: Self.noStackFunctionName)
    let sizes = sites.map { ($0.bytes, $0.allocatedBytes ?? $0.bytes, $0.objects) }
    let largestFirst = sites.indices.sorted { first, second in
      let (one, other) = (sizes[first], sizes[second])
      return (other.0, other.1, other.2, first) < (one.0, one.1, one.2, second)
    }
    for index in largestFirst {
      let site = sites[index]
      let frames = site.frames.map { $0[Self.allocatingFunctionIndex(in: $0)...] } ?? []
      let allocated = (objects: site.allocatedObjects ?? site.objects, bytes: site.allocatedBytes ?? site.bytes)
      let alloc = Self.scaled(objects: allocated.objects, bytes: allocated.bytes, samplingInterval: samplingInterval)
      let inuse = Self.scaled(objects: site.objects, bytes: site.bytes, samplingInterval: samplingInterval)
      var labels = site.typeName.map { [PprofProfile.Label(key: Self.objectLabelKey, string: $0)] } ?? []
      if allocated.objects > 0, allocated.bytes / allocated.objects > 0 {
        labels.append(.init(key: Self.sizeLabelKey, number: Int64(allocated.bytes / allocated.objects)))
      }
      profile.samples.append(
        .init(
          locationIDs: frames.isEmpty ? [locationID([noStack])] : Self.addresses(of: frames).map(locationID),
          values: [alloc.objects, alloc.bytes, inuse.objects, inuse.bytes], labels: labels))
    }

    // The mappings the locations fall in, in the producer's order (its executable first).
    var locationsByImage: [Int: [Int]] = [:]
    for (location, image) in imageOfLocation.enumerated() {
      if let image { locationsByImage[image, default: []].append(location) }
    }
    var mappingIDs: [Int: UInt64] = [:]
    for image in self.images {
      guard let sorted = images.firstIndex(of: image), mappingIDs[sorted] == nil, let located = locationsByImage[sorted] else { continue }
      let id = UInt64(profile.mappings.count + 1)
      mappingIDs[sorted] = id
      profile.mappings.append(
        Self.mapping(
          id: id, start: image.start, limit: image.limit, fileOffset: image.fileOffset, filename: image.path, buildID: image.buildID ?? "",
          locations: located.map { profile.locations[$0] }, functions: profile.functions))
    }
    for index in profile.locations.indices {
      if let image = imageOfLocation[index], let id = mappingIDs[image] { profile.locations[index].mappingID = id }
    }
    // With no image known, one mapping without a file holds every location and says that they
    // are symbolized: pprof would otherwise make one up and try to look their addresses up again.
    if profile.mappings.isEmpty {
      profile.mappings = [
        Self.mapping(
          id: 1, start: 0, limit: 0, fileOffset: 0, filename: "", buildID: "", locations: profile.locations, functions: profile.functions)
      ]
      for index in profile.locations.indices { profile.locations[index].mappingID = 1 }
    }
    return profile
  }

  /// A sample of `objects` objects and `bytes` bytes scaled to what it stands for when one
  /// allocation in `samplingInterval` bytes was recorded, as Go's `scaleHeapSample` does: an
  /// allocation of `a` bytes is recorded with the probability `1 - exp(-a / interval)`, so the
  /// values are divided by it, `a` being the sample's average size. An interval of 0 or 1 (every
  /// allocation recorded) changes nothing; nor does it change a sample of no bytes, which Go
  /// drops and this keeps.
  ///
  /// ```swift
  /// print(HeapProfile.scaled(objects: 10, bytes: 5120, samplingInterval: 524_288))
  /// ```
  /// ```text
  /// (objects: 10245, bytes: 5245440)
  /// ```
  public static func scaled(objects: Int, bytes: Int, samplingInterval: Int) -> (objects: Int64, bytes: Int64) {
    guard samplingInterval > 1, objects > 0, bytes > 0 else { return (Int64(objects), Int64(bytes)) }
    let average = Double(bytes) / Double(objects)
    let scale = 1 / (1 - exp(-average / Double(samplingInterval)))
    return (Int64(Double(objects) * scale), Int64(Double(bytes) * scale))
  }

  /// `frames` from the function that allocated: without the allocating initializers at its
  /// start, unless nothing else is left.
  package static func fromAllocatingFunction(_ frames: [StackFrame]) -> [StackFrame] {
    Array(frames[allocatingFunctionIndex(in: frames)...])
  }

  /// `frames` split at each frame that is not inlined: the frames of each address, innermost
  /// first (an inlined function's frame goes with the frames after it, up to the function that
  /// holds its code).
  private static func addresses(of frames: ArraySlice<StackFrame>) -> [[StackFrame]] {
    var groups: [[StackFrame]] = []
    var group: [StackFrame] = []
    for frame in frames {
      group.append(frame)
      if !frame.inlined {
        groups.append(group)
        group = []
      }
    }
    if !group.isEmpty { groups.append(group) }
    return groups
  }

  /// The index of the frame of the function that allocated: the first that is no allocating
  /// initializer, or the last.
  private static func allocatingFunctionIndex(in frames: [StackFrame]) -> Int {
    frames.firstIndex { !isAllocatingInitializer($0) } ?? max(frames.count - 1, 0)
  }

  /// Whether `frame` is an allocating initializer (`MyApp.Feed.__allocating_init() -> MyApp.Feed`),
  /// searched in the name's bytes: a profile asks for every site.
  private static func isAllocatingInitializer(_ frame: StackFrame) -> Bool {
    guard var symbol = frame.symbol else { return false }
    return symbol.withUTF8 { name in
      allocatingInitializerMarker.withUnsafeBufferPointer { marker in
        guard name.count >= marker.count else { return false }
        return (0...(name.count - marker.count)).contains { start in
          name[start] == marker[0] && memcmp(name.baseAddress! + start, marker.baseAddress!, marker.count) == 0
        }
      }
    }
  }

  private static let allocatingInitializerMarker = Array("__allocating_init".utf8)

  /// A mapping that says how far `locations`, all of it, are symbolized: whether each names a
  /// file and a line, and whether any names a function. Every address was looked up before the
  /// profile was written (by the capture, or by the tracker's caller), so a mapping where one
  /// was found says it has functions: readers then leave its addresses alone rather than look
  /// them up again in the binary, whose Swift symbols they do not demangle.
  private static func mapping(
    id: UInt64, start: UInt64, limit: UInt64, fileOffset: UInt64, filename: String, buildID: String, locations: [PprofProfile.Location],
    functions: [PprofProfile.Function]
  ) -> PprofProfile.Mapping {
    let lines = locations.map(\.lines.first)
    return PprofProfile.Mapping(
      id: id, memoryStart: start, memoryLimit: limit, fileOffset: fileOffset, filename: filename, buildID: buildID,
      hasFunctions: lines.contains { $0 != nil },
      hasFilenames: lines.allSatisfy { $0.map { !functions[Int($0.functionID) - 1].filename.isEmpty } ?? false },
      hasLineNumbers: lines.allSatisfy { ($0?.line ?? 0) > 0 })
  }

  /// The index of the image of `sorted` (by start) that holds `address`.
  private static func image(containing address: UInt64, in sorted: [Image]) -> Int? {
    var low = 0
    var high = sorted.count
    while low < high {
      let middle = (low + high) / 2
      if sorted[middle].start <= address { low = middle + 1 } else { high = middle }
    }
    guard low > 0, address < sorted[low - 1].limit else { return nil }
    return low - 1
  }
}
