import XCTest

/// Skips a test that reads the blocks libdispatch keeps when the process runs under
/// ThreadSanitizer: its runtime interposes `dispatch_async`, `dispatch_after`,
/// `dispatch_source_set_event_handler` and the rest, and hands libdispatch a wrapper of its own
/// instead of the program's block, so the blocks those tests look for are not where libdispatch
/// keeps them. (Work items are not wrapped; their tests run under it.)
public func skipWhereThreadSanitizerWrapsDispatchBlocks() throws {
  try XCTSkipIf(
    dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil,
    "ThreadSanitizer wraps the blocks handed to libdispatch: the program's blocks are not where libdispatch keeps them")
}
