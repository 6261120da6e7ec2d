import XCTest

/// Skips a test that reads the blocks or tasks libdispatch keeps when the process runs under
/// ThreadSanitizer: its runtime interposes `dispatch_async`, `dispatch_after`, their `_f`
/// variants (which the concurrency runtime hands tasks to), `dispatch_source_set_event_handler`
/// and the rest, and hands libdispatch a wrapper of its own instead of the program's block or
/// context, so what those tests look for is not where libdispatch keeps it. (Work items are not
/// wrapped; their tests run under it.)
public func skipWhereThreadSanitizerWrapsDispatchBlocks() throws {
  try XCTSkipIf(
    threadSanitizerWrapsDispatchBlocks,
    "ThreadSanitizer wraps the blocks handed to libdispatch: the program's blocks are not where libdispatch keeps them")
}

/// Whether this process runs under ThreadSanitizer, which wraps the blocks handed to libdispatch
/// (see ``skipWhereThreadSanitizerWrapsDispatchBlocks()``), for Swift Testing's conditions.
public var threadSanitizerWrapsDispatchBlocks: Bool { dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil }
