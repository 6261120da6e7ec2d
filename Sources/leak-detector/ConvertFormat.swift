import ArgumentParser
import HeapGraph

/// What `convert` writes: a snapshot in one of its encodings, or the heap profile of the
/// snapshot's objects in pprof's format.
enum ConvertFormat: String, CaseIterable, ExpressibleByArgument {
  case json
  case binary
  case pprof

  /// The snapshot encoding, for the formats that are one.
  var snapshotEncoding: HeapSnapshot.FileEncoding? {
    switch self {
    case .json: .json
    case .binary: .binary
    case .pprof: nil
    }
  }
}
