#define _GNU_SOURCE
#include "EntryBlocks.h"
#include "SpinLock.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

tracked_entry_t *cleak_entries = NULL;
atomic_uint cleak_entry_block_count = 0;
/// How many blocks the reserved range holds.
static unsigned reservedBlocks = 0;
#define CLEAK_MAX_BLOCKS (1u << 18)  // 128 million objects: 4 GiB of address space
_Thread_local entry_cursor_t cleak_entry_cursor __attribute__((tls_model("initial-exec"))) = {0, 0};

/// Whether a thread owns block N (its entries are taken only by that thread).
static atomic_uchar owned[CLEAK_MAX_BLOCKS];
static atomic_uint nextCandidate = 0;
static atomic_flag growLock = ATOMIC_FLAG_INIT;
static pthread_key_t ownerKey;
static pthread_once_t ownerKeyOnce = PTHREAD_ONCE_INIT;

/// Blocks that ended threads gave back, most recent last (behind `givenBackLock`): the first
/// place a thread looks for a block, so that a program that starts and ends threads all the time
/// reuses their blocks however many full blocks there are to probe.
static unsigned givenBack[CLEAK_MAX_BLOCKS];
static unsigned givenBackCount = 0;
static atomic_flag givenBackLock = ATOMIC_FLAG_INIT;

/// A thread that ends gives its block back, so short-lived threads do not strand entries.
static void releaseOnThreadExit(void *value) {
  unsigned block = (unsigned)((uintptr_t)value - 1);
  atomic_store(&owned[block], 0);
  if (cleak_entry_cursor.block == (uintptr_t)value) cleak_entry_cursor = (entry_cursor_t){0, 0};
  cleak_spin_lock(&givenBackLock);
  if (givenBackCount < CLEAK_MAX_BLOCKS) givenBack[givenBackCount++] = block;
  cleak_spin_unlock(&givenBackLock);
}

/// Takes the most recently given-back block that no thread owns, or returns UINT32_MAX.
static unsigned takeGivenBack(void) {
  cleak_spin_lock(&givenBackLock);
  unsigned found = UINT32_MAX;
  while (givenBackCount > 0 && found == UINT32_MAX) {
    unsigned block = givenBack[--givenBackCount];
    if (!atomic_exchange(&owned[block], 1)) found = block;  // else taken since by a probe
  }
  cleak_spin_unlock(&givenBackLock);
  return found;
}

static void makeOwnerKey(void) {
  pthread_key_create(&ownerKey, releaseOnThreadExit);
}

/// How many of 64 entries spread over the block are free.
static unsigned freeOfSample(unsigned block) {
  const tracked_entry_t *entries = cleak_block_entries(block);
  unsigned free = 0;
  for (unsigned slot = 0; slot < CLEAK_BLOCK_ENTRIES; slot += CLEAK_BLOCK_ENTRIES / 64) {
    free += atomic_load_explicit(&entries[slot].object, memory_order_relaxed) == 0;
  }
  return free;
}

/// Reserves the range, as large as the system lets a process reserve (with strict overcommit
/// accounting a reservation counts in full).
static bool reserve(void) {
  for (unsigned blocks = CLEAK_MAX_BLOCKS; blocks >= 64; blocks /= 8) {
    void *range = mmap(NULL, (size_t)blocks * CLEAK_BLOCK_ENTRIES * sizeof(tracked_entry_t), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (range != MAP_FAILED) {
      cleak_entries = range;
      reservedBlocks = blocks;
      return true;
    }
  }
  return false;
}

static bool take(entry_cursor_t *cursor, unsigned block) {
  *cursor = (entry_cursor_t){block + 1, 0};
  pthread_once(&ownerKeyOnce, makeOwnerKey);
  pthread_setspecific(ownerKey, (void *)(uintptr_t)(block + 1));
  return true;
}

bool cleak_entries_refill(entry_cursor_t *cursor) {
  const unsigned enough = 16;  // a quarter of the sample free: worth scanning
  if (cursor->block != 0) {
    if (freeOfSample(cursor->block - 1) >= enough) {
      cursor->next = 0;
      return true;
    }
    atomic_store(&owned[cursor->block - 1], 0);
    cursor->block = 0;
  }
  for (unsigned block = takeGivenBack(); block != UINT32_MAX; block = takeGivenBack()) {
    if (freeOfSample(block) >= enough) return take(cursor, block);
    atomic_store(&owned[block], 0);  // still full: the probes below find it once it has room
  }
  unsigned count = atomic_load_explicit(&cleak_entry_block_count, memory_order_acquire);
  for (int attempt = 0; attempt < 4 && count > 0; attempt++) {
    unsigned candidate = atomic_fetch_add_explicit(&nextCandidate, 1, memory_order_relaxed) % count;
    if (atomic_exchange(&owned[candidate], 1)) continue;
    if (freeOfSample(candidate) >= enough) return take(cursor, candidate);
    atomic_store(&owned[candidate], 0);
  }
  cleak_spin_lock(&growLock);
  unsigned index = atomic_load(&cleak_entry_block_count);
  if ((cleak_entries == NULL && !reserve()) || index >= reservedBlocks) {
    cleak_spin_unlock(&growLock);
    return false;
  }
  atomic_store(&owned[index], 1);
  atomic_store_explicit(&cleak_entry_block_count, index + 1, memory_order_release);
  cleak_spin_unlock(&growLock);
  return take(cursor, index);
}

bool cleak_entries_forget_entry(uint32_t number, uintptr_t object) {
  tracked_entry_t *entry = cleak_entry_numbered(number);
  uintptr_t expected = object;
  return entry != NULL && atomic_compare_exchange_strong(&entry->object, &expected, 0);
}

size_t cleak_entries_count(void) {
  size_t total = 0;
  unsigned count = atomic_load_explicit(&cleak_entry_block_count, memory_order_acquire);
  for (unsigned block = 0; block < count; block++) {
    const tracked_entry_t *entries = cleak_block_entries(block);
    for (unsigned slot = 0; slot < CLEAK_BLOCK_ENTRIES; slot++) {
      total += atomic_load_explicit(&entries[slot].object, memory_order_relaxed) != 0;
    }
  }
  return total;
}

size_t cleak_entries_copy(cleak_tracked_object *buffer, size_t copied, size_t capacity, int64_t generation) {
  unsigned count = atomic_load_explicit(&cleak_entry_block_count, memory_order_acquire);
  for (unsigned block = 0; block < count && copied < capacity; block++) {
    tracked_entry_t *entries = cleak_block_entries(block);
    for (unsigned slot = 0; slot < CLEAK_BLOCK_ENTRIES && copied < capacity; slot++) {
      uintptr_t object = atomic_load_explicit(&entries[slot].object, memory_order_acquire);
      if (object == 0) continue;
      tracked_entry_t *entry = &entries[slot];
      cleak_tracked_object copy = {object,
                                   atomic_load_explicit(&entry->metadata, memory_order_relaxed),
                                   atomic_load_explicit(&entry->generation, memory_order_relaxed),
                                   atomic_load_explicit(&entry->stack, memory_order_relaxed),
                                   atomic_load_explicit(&entry->size, memory_order_relaxed),
                                   block * CLEAK_BLOCK_ENTRIES + slot + 1};
      // The owner may have reused the entry while it was read: keep only a consistent copy.
      atomic_thread_fence(memory_order_acquire);
      if (atomic_load_explicit(&entry->object, memory_order_relaxed) != object) continue;
      if (generation >= 0 && copy.generation != (uint32_t)generation) continue;
      buffer[copied++] = copy;
    }
  }
  return copied;
}

void cleak_entries_clear(void) {
  unsigned count = atomic_load_explicit(&cleak_entry_block_count, memory_order_acquire);
  for (unsigned block = 0; block < count; block++) {
    tracked_entry_t *entries = cleak_block_entries(block);
    for (unsigned slot = 0; slot < CLEAK_BLOCK_ENTRIES; slot++) {
      atomic_store_explicit(&entries[slot].object, 0, memory_order_release);
    }
  }
}

cleak_memory_range cleak_entries_storage(void) {
  uintptr_t start = (uintptr_t)cleak_entries;
  return (cleak_memory_range){start, start + (uintptr_t)reservedBlocks * CLEAK_BLOCK_ENTRIES * sizeof(tracked_entry_t)};
}
