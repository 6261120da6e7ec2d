#include "AddressTable.h"
#include "SpinLock.h"

#include <stdlib.h>
#include <string.h>

#define SHARD_COUNT 64

typedef struct {
  atomic_flag lock;
  cleak_tracked_object *slots;  // object 0: empty slot
  size_t capacity;              // a power of two
  size_t count;                 // written under the lock, read without it by removals
  char padding[64];
} shard_t;

static shard_t shards[SHARD_COUNT];
atomic_bool cleak_address_table_used = false;

static inline size_t hashAddress(uintptr_t address) {
  // Fibonacci hashing of the 16-byte-aligned address: one multiply, high bits kept.
  return (size_t)((((uint64_t)address >> 4) * 0x9E3779B97F4A7C15ULL) >> 24);
}

static inline shard_t *shardFor(uintptr_t object, size_t *hash) {
  *hash = hashAddress(object);
  return &shards[*hash % SHARD_COUNT];
}

static int grow(shard_t *shard) {
  size_t capacity = shard->capacity ? shard->capacity * 2 : 32;
  cleak_tracked_object *slots = calloc(capacity, sizeof(cleak_tracked_object));
  if (slots == NULL) return 0;
  for (size_t index = 0; index < shard->capacity; index++) {
    cleak_tracked_object entry = shard->slots[index];
    if (entry.object == 0) continue;
    size_t slot = (hashAddress(entry.object) / SHARD_COUNT) & (capacity - 1);
    while (slots[slot].object != 0) slot = (slot + 1) & (capacity - 1);
    slots[slot] = entry;
  }
  free(shard->slots);
  shard->slots = slots;
  shard->capacity = capacity;
  return 1;
}

void cleak_address_table_insert(cleak_tracked_object entry) {
  if (!atomic_load_explicit(&cleak_address_table_used, memory_order_relaxed)) atomic_store(&cleak_address_table_used, true);
  uint64_t bit = cleak_address_table_class_bit(entry.metadata);
  _Atomic uint64_t *classes = &cleak_tracker_fast_path.gate.addressTableClasses;
  if (!(atomic_load_explicit(classes, memory_order_relaxed) & bit)) atomic_fetch_or(classes, bit);
  size_t hash;
  shard_t *shard = shardFor(entry.object, &hash);
  cleak_spin_lock(&shard->lock);
  if ((shard->count + 1) * 2 > shard->capacity && !grow(shard)) {  // at most half full: short probes
    cleak_spin_unlock(&shard->lock);
    return;  // out of memory: the object is not tracked
  }
  size_t mask = shard->capacity - 1;
  size_t slot = (hash / SHARD_COUNT) & mask;
  while (shard->slots[slot].object != 0 && shard->slots[slot].object != entry.object) slot = (slot + 1) & mask;
  if (shard->slots[slot].object == 0) __atomic_store_n(&shard->count, shard->count + 1, __ATOMIC_RELAXED);
  shard->slots[slot] = entry;
  cleak_spin_unlock(&shard->lock);
}

bool cleak_address_table_remove(uintptr_t object) {
  size_t hash;
  shard_t *shard = shardFor(object, &hash);
  // An empty shard cannot hold the object (its insertion happened before its deallocation, so
  // this thread sees the count it left): most deallocations, when few objects are kept here (a
  // sampled run), then take no lock.
  if (__atomic_load_n(&shard->count, __ATOMIC_RELAXED) == 0) return false;
  cleak_spin_lock(&shard->lock);
  bool removed = false;
  if (shard->count > 0) {
    size_t mask = shard->capacity - 1;
    size_t slot = (hash / SHARD_COUNT) & mask;
    while (shard->slots[slot].object != 0 && shard->slots[slot].object != object) slot = (slot + 1) & mask;
    if (shard->slots[slot].object == object) {
      // Backward-shift deletion keeps every probe sequence intact without tombstones.
      size_t hole = slot, next = (slot + 1) & mask;
      while (shard->slots[next].object != 0) {
        size_t home = (hashAddress(shard->slots[next].object) / SHARD_COUNT) & mask;
        if (((next - home) & mask) >= ((next - hole) & mask)) {
          shard->slots[hole] = shard->slots[next];
          hole = next;
        }
        next = (next + 1) & mask;
      }
      shard->slots[hole].object = 0;
      __atomic_store_n(&shard->count, shard->count - 1, __ATOMIC_RELAXED);
      removed = true;
    }
  }
  cleak_spin_unlock(&shard->lock);
  return removed;
}

size_t cleak_address_table_count(void) {
  size_t total = 0;
  for (int index = 0; index < SHARD_COUNT; index++) {
    cleak_spin_lock(&shards[index].lock);
    total += shards[index].count;
    cleak_spin_unlock(&shards[index].lock);
  }
  return total;
}

size_t cleak_address_table_copy(cleak_tracked_object *buffer, size_t copied, size_t capacity, int64_t generation) {
  for (int index = 0; index < SHARD_COUNT && copied < capacity; index++) {
    shard_t *shard = &shards[index];
    cleak_spin_lock(&shard->lock);
    for (size_t slot = 0; slot < shard->capacity && copied < capacity; slot++) {
      cleak_tracked_object entry = shard->slots[slot];
      if (entry.object == 0 || (generation >= 0 && entry.generation != (uint32_t)generation)) continue;
      buffer[copied++] = entry;
    }
    cleak_spin_unlock(&shard->lock);
  }
  return copied;
}

void cleak_address_table_clear(void) {
  for (int index = 0; index < SHARD_COUNT; index++) {
    shard_t *shard = &shards[index];
    cleak_spin_lock(&shard->lock);
    if (shard->capacity) memset(shard->slots, 0, shard->capacity * sizeof(cleak_tracked_object));
    __atomic_store_n(&shard->count, 0, __ATOMIC_RELAXED);
    cleak_spin_unlock(&shard->lock);
  }
  // An insertion that raced with the clear keeps the table in use until it is empty again.
  if (cleak_address_table_count() == 0) {
    atomic_store(&cleak_tracker_fast_path.gate.addressTableClasses, 0);
    atomic_store(&cleak_address_table_used, false);
  }
}

void cleak_address_table_lock_all(void) {
  for (int index = 0; index < SHARD_COUNT; index++) cleak_spin_lock(&shards[index].lock);
}

void cleak_address_table_unlock_all(void) {
  for (int index = SHARD_COUNT - 1; index >= 0; index--) cleak_spin_unlock(&shards[index].lock);
}

size_t cleak_address_table_storage(cleak_memory_range *ranges, size_t capacity) {
  size_t count = 0;
  for (size_t index = 0; index < SHARD_COUNT; index++) {
    if (shards[index].slots == NULL) continue;
    if (count < capacity) {
      uintptr_t start = (uintptr_t)shards[index].slots;
      ranges[count] = (cleak_memory_range){start, start + shards[index].capacity * sizeof(cleak_tracked_object)};
    }
    count += 1;
  }
  return count;
}
