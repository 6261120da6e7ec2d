/// One bit per node, for the question a graph walk asks of every edge it follows (has the
/// target been seen?): ten million nodes take 1.25 MB, which stays in the processor's caches,
/// where an array of a word per node (40 MB) sends nearly every such question to memory.
/// Allocated by its owner and freed with ``release()``.
struct NodeBits {
  private let words: UnsafeMutableBufferPointer<UInt64>

  /// `count` bits, all clear.
  init(count: Int) {
    words = .allocate(capacity: (count + 63) / 64)
    words.initialize(repeating: 0)
  }

  func release() { words.deallocate() }

  subscript(node: Int) -> Bool {
    words[node &>> 6] & (1 &<< UInt64(node & 63)) != 0
  }

  func set(_ node: Int) {
    words[node &>> 6] |= 1 &<< UInt64(node & 63)
  }
}
