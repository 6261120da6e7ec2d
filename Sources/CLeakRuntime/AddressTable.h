// The tracker's table for objects that cannot carry a trailer (see `EntryBlocks.h`): objects
// tracked explicitly, and objects with tail-allocated elements, whose owners may use the
// allocation's slack. Sharded by address; each shard is an open-addressing hash (linear probing,
// backward-shift deletion) behind a spinlock.
#pragma once

#include "CLeakRuntime.h"
#include "InterposerFastPath.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// Whether the table may hold entries: when not, deallocations skip it.
extern atomic_bool cleak_address_table_used __attribute__((visibility("hidden")));
static inline bool cleak_address_table_in_use(void) {
  return atomic_load_explicit(&cleak_address_table_used, memory_order_relaxed);
}
/// The tracker's fast path (AllocationTracking.c), whose gate holds the classes of the objects the
/// table may hold, as a 64-bit filter (a bit per class, by its metadata's address): set by
/// insertions, cleared with the table, read by every deallocation.
extern cleak_interposer_fast_path cleak_tracker_fast_path __attribute__((visibility("hidden")));

static inline uint64_t cleak_address_table_class_bit(uintptr_t metadata) {
  return (uint64_t)1 << ((metadata >> 3) & 63);
}

/// Whether the table may hold `object`, an object not yet freed (its metadata word is read):
/// false, without touching the table, for the objects of every class none of whose objects was
/// put in it, so that most deallocations never look it up.
static inline bool cleak_address_table_may_hold(uintptr_t object) {
  uint64_t classes = atomic_load_explicit(&cleak_tracker_fast_path.gate.addressTableClasses, memory_order_relaxed);
  return __builtin_expect(classes != 0, 0) && (classes & cleak_address_table_class_bit(*(const uintptr_t *)object)) != 0;
}

void cleak_address_table_insert(cleak_tracked_object entry);
/// Removes `object`'s entry; returns whether there was one.
bool cleak_address_table_remove(uintptr_t object);
size_t cleak_address_table_count(void);
/// Appends entries (of `generation`, or all when negative) after `buffer[copied]`; returns the new count.
size_t cleak_address_table_copy(cleak_tracked_object *buffer, size_t copied, size_t capacity, int64_t generation);
void cleak_address_table_clear(void);
/// The shards' slot arrays, which hold object addresses: writes up to `capacity`; returns how many there are.
size_t cleak_address_table_storage(cleak_memory_range *ranges, size_t capacity);
void cleak_address_table_lock_all(void);
void cleak_address_table_unlock_all(void);
