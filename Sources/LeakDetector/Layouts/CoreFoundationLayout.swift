/// CoreFoundation's private run-loop structures, as the run-loop readers read them: where a
/// `CFRunLoop` keeps its modes and its pending blocks, a mode its timers, a timer its `Timer`,
/// and the `CFSet` and `CFArray` that hold them.
///
/// Read from swift-corelibs-foundation of Swift 6.3.1 (swift-6.3.1-RELEASE:
/// `Sources/CoreFoundation/CFRunLoop.c`, `CFBasicHash.c`, `CFArray.c`), Linux x86_64. Offsets
/// are in bytes from the start of the structure named. Nothing here is checked at start-up; a
/// timer's link back to its run loop is checked before the timer is read further.
enum CoreFoundationLayout {
  /// `struct __CFRunLoop`.
  enum RunLoop {
    /// `_modes`: a `CFMutableSet` of modes.
    static let modes: UInt = 120
    /// `_blocks_head`: the first of a list of `struct _block_item`.
    static let blocksHead: UInt = 128
  }

  /// `struct _block_item`: a block `RunLoop.perform(_:)` left for the run loop.
  enum BlockItem {
    static let next: UInt = 0
    static let block: UInt = 16
  }

  /// `struct __CFRunLoopMode`.
  enum RunLoopMode {
    /// `_timers`: a `CFMutableArray` of timers.
    static let timers: UInt = 104
  }

  /// `struct __CFRunLoopTimer`.
  enum RunLoopTimer {
    /// `_runLoop`: the run loop it is scheduled on.
    static let runLoop: UInt = 72
    /// `_context.info`: the Swift `Timer` (not retained by CoreFoundation).
    static let info: UInt = 144
  }

  /// `struct __CFBasicHash` (a `CFSet`).
  enum BasicHash {
    /// The word of `bits` whose byte 2 (byte 34 of the hash) is the bucket count's index.
    static let bits: UInt = 32
    static let bucketCountIndexShift: UInt = 16
    static let bucketCountIndexMask: UInt = 0xFF
    /// `pointers[0]`: the values, one word per bucket.
    static let values: UInt = 48
    /// An empty bucket's and a deleted bucket's value.
    static let emptyBucket: UInt = 0
    static let deletedBucket: UInt = ~0
    /// `__CFBasicHashTableSizes`, its first entries: the bucket counts by index.
    static let bucketCounts: [UInt] = [0, 3, 7, 13, 23, 41, 71, 127, 191, 251, 383, 631, 1087]
  }

  /// `struct __CFArray` (mutable, deque-backed) and its `struct __CFArrayDeque`.
  enum Array {
    /// `_cnt`: the number of elements.
    static let count: UInt = 24
    /// `_store`: the deque.
    static let store: UInt = 48
    /// The deque's `_leftIdx`, `_capacity`, then its elements.
    static let dequeLeftIndex: UInt = 0
    static let dequeCapacity: UInt = 8
    static let dequeElements: UInt = 16
  }
}
