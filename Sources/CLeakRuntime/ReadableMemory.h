// Readability checks for scans that test very many words of memory that does not change while
// they run (a capture child's frozen copy of the heap).
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "CLeakRuntime.h"

/// Whether `length` bytes at `address` lie in a readable mapping as of the last refresh: a
/// binary search, never a refresh. A scan of global data tests every pointer-like word there, and
/// most misses are integers that only look like addresses; refreshing on each (as
/// `cleak_is_readable` does, at most once per millisecond) made the scan of 5 MB of global data
/// cost tens of milliseconds.
bool cleak_is_readable_without_refresh(uintptr_t address, size_t length);

/// Holds the snapshot of the readable mappings for a scan (readers share it; a refresh waits),
/// so that the scan tests its words with `cleak_is_readable_while_held`, without a lock each:
/// `cleak_hold_readable_regions(); … cleak_release_readable_regions();`.
void cleak_hold_readable_regions(void);
void cleak_release_readable_regions(void);

/// `cleak_is_readable_without_refresh`, between `cleak_hold_readable_regions` and
/// `cleak_release_readable_regions`: it takes no lock, so a guarded body may call it.
bool cleak_is_readable_while_held(uintptr_t address, size_t length);

/// Runs `body` so that a SIGSEGV or SIGBUS it raises returns here (0) instead of ending the
/// process, once `cleak_guard_reads_in_child` has run (a capture child); elsewhere simply runs it
/// (1). Guarded bodies must not nest, take locks or allocate.
int cleak_run_guarded(void (*body)(void *context), void *context);

/// Whether reads recover from faults here: in a capture child, after `cleak_guard_reads_in_child`.
int cleak_reads_are_guarded(void);

