// Where the tracker keeps the objects it tracks, so that neither recording nor forgetting one
// takes a lock or hashes an address.
//
// Entries live in one reserved range of address space (pages are only used once touched), in
// blocks of 512. A thread owns one block at a time and takes the free entries of that block in
// order, so recording an object is a few stores to memory the thread alone writes. To forget an
// object without searching, the tracked object itself says where its entry is: the interposer
// allocates room for an 8-byte *trailer* right after the instance (its size rounded up to 8) and
// writes there a 32-bit tag derived from the object's address and the entry's number. The
// deallocation entry points get the instance size again; they read the
// trailer, check the tag and that the entry still names the object, and clear both. For an object
// that has no trailer those 8 bytes are still inside its allocation block or the allocator's next
// header, and the entry check keeps a chance match of the tag from doing anything.
//
// An entry is published by storing its object last and forgotten by storing 0 there, so a reader
// (a query, or a capture child's frozen copy) never sees an object with another one's fields.
#pragma once

#include "CLeakRuntime.h"
#include "InterposerFastPath.h"  // the trailer
#include "TrackedEntry.h"

#include <stdbool.h>
#include <stddef.h>

#define CLEAK_BLOCK_ENTRIES 512u

// The hooks' globals are hidden: read from the agent (a shared library) without a load of their
// address from the GOT first.

/// The reserved range; blocks are never given back, so an entry's address stays valid for every reader.
extern tracked_entry_t *cleak_entries __attribute__((visibility("hidden")));
/// How many blocks of the range are in use.
extern atomic_uint cleak_entry_block_count __attribute__((visibility("hidden")));
/// The whole reserved range (empty before the first entry): its entries hold object addresses.
cleak_memory_range cleak_entries_storage(void);

/// The block this thread takes entries from (its number + 1; 0: none) and the next entry to try.
typedef struct {
  uint32_t block;
  uint32_t next;
} entry_cursor_t;

extern _Thread_local entry_cursor_t cleak_entry_cursor __attribute__((tls_model("initial-exec"), visibility("hidden")));

/// Gives this thread a block with free entries: its own again when enough have been freed, an
/// unowned one with room, or a new one. Returns false when no memory is left.
bool cleak_entries_refill(entry_cursor_t *cursor);

/// The entries of block `block` (counted from 0).
static inline tracked_entry_t *cleak_block_entries(unsigned block) {
  return cleak_entries + (size_t)block * CLEAK_BLOCK_ENTRIES;
}

/// How many entries the blocks in use hold.
static inline size_t cleak_entries_capacity(void) {
  return (size_t)atomic_load_explicit(&cleak_entry_block_count, memory_order_acquire) * CLEAK_BLOCK_ENTRIES;
}

/// The entry with number `number` (its index + 1, as trailers and copies give it), or NULL when
/// no block in use has it.
static inline tracked_entry_t *cleak_entry_numbered(uint32_t number) {
  return number == 0 || number > cleak_entries_capacity() ? NULL : &cleak_entries[number - 1];
}

/// A free entry of this thread's block, with its index + 1 in `number`; NULL when none can be had.
static inline tracked_entry_t *cleak_entries_take(uint32_t *number) {
  entry_cursor_t *cursor = &cleak_entry_cursor;
  for (;;) {
    if (cursor->block != 0) {
      tracked_entry_t *entries = cleak_block_entries(cursor->block - 1);
      while (cursor->next < CLEAK_BLOCK_ENTRIES) {
        uint32_t slot = cursor->next++;
        if (atomic_load_explicit(&entries[slot].object, memory_order_acquire) == 0) {
          *number = (cursor->block - 1) * CLEAK_BLOCK_ENTRIES + slot + 1;
          return &entries[slot];
        }
      }
    }
    if (!cleak_entries_refill(cursor)) return NULL;
  }
}

/// Records `object` in `entry` (number `number`) and writes its trailer.
static inline void cleak_entries_publish(tracked_entry_t *entry, uint32_t number, uintptr_t object, uintptr_t metadata,
                                         uint32_t generation, uint32_t stack, uint64_t size) {
  atomic_store_explicit(&entry->metadata, metadata, memory_order_relaxed);
  atomic_store_explicit(&entry->generation, generation, memory_order_relaxed);
  atomic_store_explicit(&entry->stack, stack, memory_order_relaxed);
  atomic_store_explicit(&entry->size, size, memory_order_relaxed);
  atomic_store_explicit(&entry->object, object, memory_order_release);
  uint32_t *trailer = cleak_trailer(object, size);
  trailer[0] = cleak_trailer_tag(object);
  trailer[1] = number;
}

/// Forgets `object`, an instance of `size` bytes being freed, when its trailer names an entry that holds it.
/// An object without a trailer has its 8 bytes read all the same (see `cleak_trailer_read`).
__attribute__((always_inline)) static inline bool cleak_entries_forget(uintptr_t object, size_t size) {
  uint32_t *trailer = cleak_trailer(object, size);
  uint64_t word = cleak_trailer_read(trailer);
  if ((uint32_t)word != cleak_trailer_tag(object)) return false;
  tracked_entry_t *entry = cleak_entry_numbered((uint32_t)(word >> 32));
  if (entry == NULL || atomic_load_explicit(&entry->object, memory_order_relaxed) != object) return false;
  trailer[0] = 0;
  atomic_store_explicit(&entry->object, 0, memory_order_release);
  return true;
}

/// Forgets entry `number` if it still holds `object` (an object freed where no hook saw it).
bool cleak_entries_forget_entry(uint32_t number, uintptr_t object);
/// The number of entries that hold an object.
size_t cleak_entries_count(void);
/// Appends the entries (of `generation`, or all when negative) after `buffer[copied]`; returns the new count.
size_t cleak_entries_copy(cleak_tracked_object *buffer, size_t copied, size_t capacity, int64_t generation);
/// Forgets every entry (their blocks stay, for reuse).
void cleak_entries_clear(void);
