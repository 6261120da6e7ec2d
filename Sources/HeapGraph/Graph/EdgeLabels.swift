/// The label of each strong edge of an ``ObjectGraph``: an index into its sorted labels, -1 for
/// an edge without one. Two bytes an edge while the labels number fewer than 65,535, as they do
/// on every heap but those with a label per dictionary key; four bytes otherwise. On a heap of
/// thirty million references that is 54 MB less at every moment of the analysis.
struct EdgeLabels: Sendable {
  private enum Storage {
    case narrow([UInt16])
    case wide([Int32])
  }

  private let storage: Storage
  private static let narrowNone = UInt16.max

  /// `labels` as ``ObjectGraph`` builds them (-1: none), each below `labelCount`.
  init(_ labels: [Int32], labelCount: Int) {
    storage =
      labelCount < Int(Self.narrowNone)
      ? .narrow(labels.map { $0 < 0 ? Self.narrowNone : UInt16(truncatingIfNeeded: $0) }) : .wide(labels)
  }

  subscript(edge: Int) -> Int32 {
    switch storage {
    case .narrow(let labels):
      let label = labels[edge]
      return label == Self.narrowNone ? -1 : Int32(label)
    case .wide(let labels): return labels[edge]
    }
  }
}
