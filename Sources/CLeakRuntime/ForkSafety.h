// The locks of this target that a forked child must find released, with the state they guard
// consistent. ForkSafety.c takes them all before `fork()` and releases them on both sides.
#pragma once

/// The allocation tracker's shard and stack locks.
void cleak_tracker_lock_for_fork(void);
void cleak_tracker_unlock_after_fork(void);

/// The lock of the readable-mappings cache.
void cleak_readable_lock_for_fork(void);
void cleak_readable_unlock_after_fork(int inChild);

/// The libdw session's lock.
void cleak_symbolize_lock_for_fork(void);
void cleak_symbolize_unlock_after_fork(int inChild);

/// Stops recording allocations in this process (a capture child: its own allocations are not
/// the program's), keeping the table as it was.
void cleak_tracker_stop_recording_in_child(void);

/// Makes reads of memory in this capture child recover from a fault (SIGSEGV, SIGBUS) instead
/// of ending it; call it after the child's signal dispositions are reset.
void cleak_guard_reads_in_child(void);

