/// libdispatch's private structures, as the hidden-reference readers read them: where a source
/// keeps its handlers, a work item its block, a queue its waiting items, the timer heaps their
/// armed timers, and the epoll backend its registered sources.
///
/// Read from swift-corelibs-libdispatch of Swift 6.3.1 (swift-6.3.1-RELEASE: `src/object_internal.h`,
/// `src/queue_internal.h`, `src/source_internal.h`, `src/event/event_internal.h`,
/// `src/event/event_config.h`, `src/event/event_epoll.c`, `src/block.cpp`), Linux x86_64.
/// Offsets are in bytes from the start of the structure named. The offsets of the Swift
/// wrapper, a source, its unote and type, a handler's continuation and the block of a Swift
/// closure are checked once, before the first capture, on a source made for it
/// (``DispatchLayoutCheck``). The rest (queues, timer heaps, muxnotes, private blocks) cannot
/// be without making work or registering a source; every reader checks a structure's own links
/// (a unote's back link to a source whose unote it is, a block's magic number) before it reads
/// further.
enum DispatchLayout {
  /// The Swift classes `DispatchSource`, `DispatchQueue` and `DispatchWorkItem`: one stored word
  /// after the object header, the C object they wrap (for a work item, its block).
  enum SwiftWrapper {
    static let wrapped: UInt = 16
  }

  /// `struct dispatch_source_s`.
  enum Source {
    /// `ds_refs`: the source's unote (`struct dispatch_source_refs_s`).
    static let refs: UInt = 88
  }

  /// `struct dispatch_source_type_s`, a unote's type.
  enum SourceType {
    /// `dst_kind`: the kind's name, a C string (`signal`, `read`, `write`, `timer`, `data-add`).
    static let kindName: UInt = 0
  }

  /// `struct dispatch_source_refs_s` (a unote) and `struct dispatch_timer_source_refs_s`.
  enum Unote {
    /// `du_type`: the source's type.
    static let type: UInt = 0
    /// `du_ident` (32 bits): the signal number of a signal source, the file descriptor of a read
    /// or write source.
    static let ident: UInt = 24
    /// `du_owner_wref`: the owning source's address, bitwise inverted.
    static let ownerLink: UInt = 8
    /// The word that holds `du_timer_flags` in its byte 6 (byte 30 of the unote).
    static let timerFlagsWord: UInt = 24
    static let timerFlagsShift: UInt = 48
    /// `DISPATCH_TIMER_AFTER`: the internal timer source of `dispatch_after`.
    static let timerAfterFlag: UInt = 0x40
    /// `ds_handler[DS_EVENT_HANDLER]`, `[DS_CANCEL_HANDLER]`, `[DS_REGISTN_HANDLER]`:
    /// continuations.
    static let eventHandler: UInt = 40
    static let cancelHandler: UInt = 48
    static let registrationHandler: UInt = 56
  }

  /// `_dispatch_sources` of the epoll backend: the muxnotes of the registered sources, a list per
  /// bucket of a hash of their ident.
  enum Muxnotes {
    /// `DSL_HASH_SIZE` buckets, one list head (a pointer) each.
    static let bucketCount: UInt = 256
    static let stride: UInt = 8
  }

  /// `struct dispatch_muxnote_s`: one file descriptor (or signal) that epoll watches, and the
  /// unotes registered on it.
  enum Muxnote {
    /// `dmn_list.le_next`: the next muxnote of the bucket.
    static let next: UInt = 0
    /// `dmn_readers_head` and `dmn_writers_head`: the first unote linkage of each list.
    static let readers: UInt = 16
    static let writers: UInt = 24
  }

  /// `struct dispatch_unote_linkage_s`, right before the unote it links.
  enum UnoteLinkage {
    /// `du_link.le_next`: the next linkage of the muxnote's list.
    static let next: UInt = 0
    /// Its size: the unote starts there.
    static let size: UInt = 24
  }

  /// `struct dispatch_continuation_s`. A list element whose first word is below
  /// ``flagsLimit`` is a continuation (its flags); above it, an object (its vtable).
  enum Continuation {
    /// `dc_flags`, the first word.
    static let flagsLimit: UInt = 0x1000
    /// `DC_FLAG_BLOCK`: `context` is a heap block.
    static let blockFlag: UInt = 0x10
    /// `DC_FLAG_BLOCK_WITH_PRIVATE_DATA`: the block is a private block of `dispatch_block_create`.
    static let privateDataFlag: UInt = 0x20
    /// `do_next`: the next item of a queue's list.
    static let next: UInt = 16
    /// `dc_ctxt`: the block, or a function's context (a task, for a job of the concurrency
    /// runtime).
    static let context: UInt = 40
  }

  /// The private data of a block made by `dispatch_block_create` (`struct
  /// dispatch_block_private_data_s`), right after the block's header.
  enum PrivateBlock {
    /// `dbpd_magic` (32 bits) and its value.
    static let magic: UInt = 32
    static let magicValue: UInt32 = 0xD159_B10C
    /// `dbpd_block`: the block written in the source.
    static let block: UInt = 72
  }

  /// `struct dispatch_lane_s` (a queue).
  enum Queue {
    /// `dq_items_tail` and `dq_items_head`.
    static let itemsTail: UInt = 48
    static let itemsHead: UInt = 104
    /// The head of a global queue a worker is popping from right now.
    static let headBeingPopped: UInt = ~0
  }

  /// `_dispatch_root_queues`: an array of `struct dispatch_queue_global_s`.
  enum RootQueues {
    static let count: UInt = 12
    static let stride: UInt = 128
  }

  /// `_dispatch_timers_heap`: an array of `struct dispatch_timer_heap_s`.
  enum TimerHeaps {
    static let count: UInt = 3
    static let stride: UInt = 32
    /// `dth_count` (32 bits) then `dth_segments` (8 bits) in the first word.
    static let countAndSegments: UInt = 0
    static let segmentsShift: UInt = 32
    static let segmentsMask: UInt32 = 0xFF
    /// `dth_min[0]` and `dth_min[1]`: the first two entries.
    static let firstEntries: UInt = 8
    /// `dth_heap`: the segment table.
    static let segmentTable: UInt = 24
    /// `DISPATCH_HEAP_INIT_SEGMENT_CAPACITY`.
    static let initialSegmentCapacity: UInt32 = 8
  }
}
