#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include "CLeakRuntime.h"
#include "SwiftRuntime.h"
#include "ForkSafety.h"

#include <dlfcn.h>
#include <libunwind.h>
#include <link.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

// The live table of the allocation tracker: every tracked Swift class instance, keyed by address,
// with its metadata, generation and allocation stack. It is sharded by address; each shard is an
// open-addressing hash (linear probing, backward-shift deletion: no tombstones) behind a spinlock.
// The hooks below run inside swift_allocObject and the deallocation entry points: they call no
// Swift code and allocate only with malloc (when a shard grows), so they cannot re-enter.

#define SHARD_COUNT 64
#define MAX_STACK_DEPTH 64

typedef struct {
  uintptr_t object;  // 0: empty slot
  uintptr_t metadata;
  uint32_t generation;
  uint32_t stack;  // 0: none, else stack id
  uint64_t size;
} entry_t;

typedef struct {
  atomic_flag lock;
  entry_t *slots;
  size_t capacity;  // a power of two
  size_t count;
  char padding[64];
} shard_t;

static shard_t shards[SHARD_COUNT];
/// Whether the table may hold entries: when not, deallocations skip it entirely.
static atomic_bool tableInUse = false;
/// Whether allocations are recorded (read inline by the interposer).
static atomic_bool recording = false;
static atomic_bool capturingStacks = false;
static atomic_uint currentGeneration = 0;
static atomic_uint sampleInterval = 1;
static _Thread_local unsigned sampleCounter = 0;
static atomic_uintptr_t stdlibStart = 0, stdlibEnd = 0;

/// The table's only lock: a test-and-set spinlock, since the hooks must not call into anything
/// that could allocate or re-enter, and critical sections are a few dozen instructions.
static inline void spinLock(atomic_flag *lock) {
  while (atomic_flag_test_and_set_explicit(lock, memory_order_acquire)) __builtin_ia32_pause();
}

static inline void spinUnlock(atomic_flag *lock) {
  atomic_flag_clear_explicit(lock, memory_order_release);
}

static inline void lockShard(shard_t *shard) { spinLock(&shard->lock); }
static inline void unlockShard(shard_t *shard) { spinUnlock(&shard->lock); }

static inline size_t hashAddress(uintptr_t address) {
  // Fibonacci hashing of the 16-byte-aligned address: one multiply, high bits kept.
  return (size_t)((((uint64_t)address >> 4) * 0x9E3779B97F4A7C15ULL) >> 24);
}

static inline shard_t *shardFor(uintptr_t object, size_t *hash) {
  *hash = hashAddress(object);
  return &shards[*hash % SHARD_COUNT];
}

static int grow(shard_t *shard) {
  size_t capacity = shard->capacity ? shard->capacity * 2 : 32;  // start small: stay in cache
  entry_t *slots = calloc(capacity, sizeof(entry_t));
  if (slots == NULL) return 0;
  for (size_t index = 0; index < shard->capacity; index++) {
    entry_t entry = shard->slots[index];
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

static void insertEntry(entry_t entry) {
  if (!atomic_load_explicit(&tableInUse, memory_order_relaxed)) {
    atomic_store(&tableInUse, true);
  }
  size_t hash;
  shard_t *shard = shardFor(entry.object, &hash);
  lockShard(shard);
  if ((shard->count + 1) * 2 > shard->capacity && !grow(shard)) {  // at most half full: short probes
    unlockShard(shard);
    return;  // out of memory: the object is not tracked
  }
  size_t mask = shard->capacity - 1;
  size_t slot = (hash / SHARD_COUNT) & mask;
  while (shard->slots[slot].object != 0 && shard->slots[slot].object != entry.object) slot = (slot + 1) & mask;
  if (shard->slots[slot].object == 0) shard->count += 1;
  shard->slots[slot] = entry;
  unlockShard(shard);
}

static void removeEntry(uintptr_t object) {
  size_t hash;
  shard_t *shard = shardFor(object, &hash);
  lockShard(shard);
  if (shard->count == 0) {
    unlockShard(shard);
    return;
  }
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
    shard->count -= 1;
  }
  unlockShard(shard);
}

// MARK: - Stacks: deduplicated PC arrays, ids from 1

typedef struct {
  uint64_t hash;  // 0: empty slot
  uint32_t depth;
  uint32_t id;
  uintptr_t *frames;
} stack_record_t;

static atomic_flag stackLock = ATOMIC_FLAG_INIT;
static stack_record_t *stackSlots = NULL;  // open addressing by hash
static size_t stackCapacity = 0, stackCount = 0;
static uint32_t *stackIndex = NULL;  // id - 1 -> slot
static const size_t maxStacks = 1 << 20;

static uint64_t hashFrames(const uintptr_t *frames, int depth) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (int index = 0; index < depth; index++) {
    hash ^= (uint64_t)frames[index];
    hash *= 0x100000001b3ULL;
  }
  return hash ? hash : 1;
}

static uint32_t internStack(const uintptr_t *frames, int depth) {
  uint64_t hash = hashFrames(frames, depth);
  spinLock(&stackLock);
  uint32_t id = 0;
  if ((stackCount + 1) * 2 > stackCapacity) {
    size_t capacity = stackCapacity ? stackCapacity * 2 : 4096;
    stack_record_t *slots = calloc(capacity, sizeof(stack_record_t));
    uint32_t *index = realloc(stackIndex, capacity * sizeof(uint32_t));
    if (slots != NULL && index != NULL) {
      stackIndex = index;
      for (size_t old = 0; old < stackCapacity; old++) {
        if (stackSlots[old].hash == 0) continue;
        size_t slot = stackSlots[old].hash & (capacity - 1);
        while (slots[slot].hash != 0) slot = (slot + 1) & (capacity - 1);
        slots[slot] = stackSlots[old];
      }
      for (size_t slot = 0; slot < capacity; slot++) {  // rebuild id -> slot
        if (slots[slot].hash == 0) continue;
        stackIndex[slots[slot].id - 1] = (uint32_t)slot;
      }
      free(stackSlots);
      stackSlots = slots;
      stackCapacity = capacity;
    } else {
      free(slots);
      if (index != NULL) stackIndex = index;
    }
  }
  if (stackCapacity > 0) {
    size_t mask = stackCapacity - 1, slot = hash & mask;
    while (stackSlots[slot].hash != 0) {
      stack_record_t *candidate = &stackSlots[slot];
      if (candidate->hash == hash && candidate->depth == (uint32_t)depth &&
          memcmp(candidate->frames, frames, sizeof(uintptr_t) * (size_t)depth) == 0) {
        id = candidate->id;
        break;
      }
      slot = (slot + 1) & mask;
    }
    if (id == 0 && stackCount < maxStacks && (stackCount + 1) * 2 <= stackCapacity) {
      uintptr_t *copy = malloc(sizeof(uintptr_t) * (size_t)depth);
      if (copy != NULL) {
        id = (uint32_t)(stackCount + 1);
        memcpy(copy, frames, sizeof(uintptr_t) * (size_t)depth);
        stackSlots[slot].hash = hash;
        stackSlots[slot].depth = (uint32_t)depth;
        stackSlots[slot].id = id;
        stackSlots[slot].frames = copy;
        stackIndex[stackCount] = (uint32_t)slot;
        stackCount += 1;
      }
    }
  }
  spinUnlock(&stackLock);
  return id;
}

int cleak_tracker_stack(uint32_t id, uintptr_t *frames, int capacity) {
  int depth = 0;
  spinLock(&stackLock);
  if (id >= 1 && id <= stackCount) {
    stack_record_t *stack = &stackSlots[stackIndex[id - 1]];
    depth = (int)stack->depth < capacity ? (int)stack->depth : capacity;
    memcpy(frames, stack->frames, sizeof(uintptr_t) * (size_t)depth);
  }
  spinUnlock(&stackLock);
  return depth;
}

// MARK: - Which objects to track

/// The bounds of libswiftCore's image: classes defined there (stdlib storage) are allocated from
/// user code but also freed inside libswiftCore, where no interposer sees it, so they are skipped.
static int findImage(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  uintptr_t probe = (uintptr_t)data;
  for (int index = 0; index < info->dlpi_phnum; index++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[index];
    if (header->p_type != PT_LOAD) continue;
    uintptr_t start = info->dlpi_addr + header->p_vaddr;
    if (probe >= start && probe < start + header->p_memsz) {
      uintptr_t low = UINTPTR_MAX, high = 0;
      for (int segment = 0; segment < info->dlpi_phnum; segment++) {
        const ElfW(Phdr) *load = &info->dlpi_phdr[segment];
        if (load->p_type != PT_LOAD) continue;
        uintptr_t begin = info->dlpi_addr + load->p_vaddr;
        if (begin < low) low = begin;
        if (begin + load->p_memsz > high) high = begin + load->p_memsz;
      }
      atomic_store(&stdlibStart, low);
      atomic_store(&stdlibEnd, high);
      return 1;
    }
  }
  return 0;
}

static inline int isTrackableClass(uintptr_t metadata) {
  uintptr_t kind = *(const uintptr_t *)metadata;
  if (kind != 0 && kind < 0x800) return 0;  // closure contexts, boxes, other heap objects
  uintptr_t descriptor = *(const uintptr_t *)(metadata + 40);
  return !(descriptor >= atomic_load_explicit(&stdlibStart, memory_order_relaxed) &&
           descriptor < atomic_load_explicit(&stdlibEnd, memory_order_relaxed));
}

// MARK: - Hooks (called from the interposers)

/// Records an allocation seen by the interposed `swift_allocObject` while recording is on.
static inline void recordAllocation(uintptr_t object, uintptr_t metadata, size_t size) {
  if (!isTrackableClass(metadata)) return;
  entry_t entry = {object, metadata, atomic_load_explicit(&currentGeneration, memory_order_relaxed), 0, size};
  if (atomic_load_explicit(&capturingStacks, memory_order_relaxed)) {
    unsigned interval = atomic_load_explicit(&sampleInterval, memory_order_relaxed);
    if (interval <= 1 || ++sampleCounter % interval == 0) {
      void *frames[MAX_STACK_DEPTH];
      int depth = unw_backtrace(frames, MAX_STACK_DEPTH);
      if (depth > 2) entry.stack = internStack((const uintptr_t *)frames + 2, depth - 2);  // drop the hook and interposer
    }
  }
  insertEntry(entry);
}

void cleak_tracker_deallocated(uintptr_t object) {
  removeEntry(object);
}

// MARK: - Control and queries

void cleak_tracker_start(bool stacks, unsigned interval) {
  if (atomic_load(&stdlibEnd) == 0) {
    void *real = dlsym(RTLD_NEXT, "swift_allocObject");
    if (real != NULL) dl_iterate_phdr(findImage, real);
  }
  atomic_store(&sampleInterval, interval ? interval : 1);
  atomic_store(&capturingStacks, stacks);
  atomic_store(&recording, true);
}

void cleak_tracker_stop(void) {
  atomic_store(&recording, false);
  for (int index = 0; index < SHARD_COUNT; index++) {
    shard_t *shard = &shards[index];
    lockShard(shard);
    if (shard->capacity) memset(shard->slots, 0, shard->capacity * sizeof(entry_t));
    shard->count = 0;
    unlockShard(shard);
  }
  // A hook that read the flags before they were cleared may still insert: keep the table in use
  // (at the cost of a lock per deallocation) only while it is not empty.
  if (cleak_tracker_count() == 0) atomic_store(&tableInUse, false);
}

void cleak_tracker_lock_for_fork(void) {
  spinLock(&stackLock);
  for (int index = 0; index < SHARD_COUNT; index++) lockShard(&shards[index]);
}

void cleak_tracker_unlock_after_fork(void) {
  for (int index = SHARD_COUNT - 1; index >= 0; index--) unlockShard(&shards[index]);
  spinUnlock(&stackLock);
}

void cleak_tracker_stop_recording_in_child(void) {
  atomic_store(&recording, false);
}

bool cleak_tracker_is_running(void) {
  return atomic_load(&recording);
}

uint32_t cleak_tracker_mark_generation(void) {
  return atomic_fetch_add(&currentGeneration, 1) + 1;
}

uint32_t cleak_tracker_generation(void) {
  return atomic_load(&currentGeneration);
}

void cleak_tracker_track(uintptr_t object, uintptr_t metadata, size_t size) {
  entry_t entry = {object, metadata, atomic_load(&currentGeneration), 0, size};
  insertEntry(entry);
}

size_t cleak_tracker_count(void) {
  size_t total = 0;
  for (int index = 0; index < SHARD_COUNT; index++) {
    lockShard(&shards[index]);
    total += shards[index].count;
    unlockShard(&shards[index]);
  }
  return total;
}

size_t cleak_tracker_copy_entries(cleak_tracked_object *buffer, size_t capacity, int64_t generation) {
  size_t copied = 0;
  for (int index = 0; index < SHARD_COUNT && copied < capacity; index++) {
    shard_t *shard = &shards[index];
    lockShard(shard);
    for (size_t slot = 0; slot < shard->capacity && copied < capacity; slot++) {
      entry_t entry = shard->slots[slot];
      if (entry.object == 0 || (generation >= 0 && entry.generation != (uint32_t)generation)) continue;
      buffer[copied].object = entry.object;
      buffer[copied].metadata = entry.metadata;
      buffer[copied].generation = entry.generation;
      buffer[copied].stack = entry.stack;
      buffer[copied].size = entry.size;
      copied += 1;
    }
    unlockShard(shard);
  }
  return copied;
}

// MARK: - Interposers

// Symbol interposition of the runtime's allocation entry points (Documentation/RuntimeNotes.md,
// "Interposing the allocation entry points"): this library's definitions win over libswiftCore's for every call through the PLT (user code,
// Foundation, Dispatch, Concurrency). The real functions are resolved on first call, not in a
// constructor: libFoundation allocates Swift objects before constructors of the executable run.
// The runtime's `_swift_allocObject` pointer hooks are never used: on Swift 6.3 they crash code
// that uses Foundation.


typedef void *(*allocate_t)(const void *metadata, size_t size, size_t alignMask);
typedef void (*deallocate_partial_t)(void *object, const void *metadata, size_t size, size_t alignMask);

static _Atomic(allocate_t) realAllocate = NULL;
static _Atomic(deallocate_partial_t) realDeallocatePartial = NULL;
static _Atomic(cleak_deallocation_observer) observer = NULL;
static atomic_int interposedCalls = 0;

void cleak_set_deallocation_observer(cleak_deallocation_observer newObserver) {
  atomic_store_explicit(&observer, newObserver, memory_order_release);
}

bool cleak_interposition_is_active(void) {
  return atomic_load(&interposedCalls) > 0;
}

void *swift_allocObject(const void *metadata, size_t size, size_t alignMask) {
  allocate_t allocate = atomic_load_explicit(&realAllocate, memory_order_relaxed);
  if (__builtin_expect(allocate == NULL, 0)) {
    allocate = (allocate_t)dlsym(RTLD_NEXT, "swift_allocObject");
    atomic_store(&realAllocate, allocate);
    atomic_store(&interposedCalls, 1);
  }
  void *object = allocate(metadata, size, alignMask);
  if (__builtin_expect(atomic_load_explicit(&recording, memory_order_relaxed), 0)) {
    recordAllocation((uintptr_t)object, (uintptr_t)metadata, size);
  }
  return object;
}

/// The deallocating deinit of every Swift class calls this through the PLT once `deinit` ran. It
/// removes the object from the tracker, tells the observer, then frees the memory with
/// `swift_deallocObject`, which is all the runtime's version does on Linux besides a debug check
/// for objects retained during deinit.
void swift_deallocClassInstance(void *object, size_t allocatedSize, size_t allocatedAlignMask) {
  if (__builtin_expect(atomic_load_explicit(&tableInUse, memory_order_relaxed), 0)) {
    removeEntry((uintptr_t)object);
  }
  cleak_deallocation_observer current = atomic_load_explicit(&observer, memory_order_acquire);
  if (__builtin_expect(current != NULL, 0)) current((uintptr_t)object);
  swift_deallocObject(object, allocatedSize, allocatedAlignMask);
}

/// A failable or throwing initializer that fails frees the partial object here.
void swift_deallocPartialClassInstance(void *object, const void *metadata, size_t size, size_t alignMask) {
  deallocate_partial_t deallocate = atomic_load_explicit(&realDeallocatePartial, memory_order_relaxed);
  if (deallocate == NULL) {
    deallocate = (deallocate_partial_t)dlsym(RTLD_NEXT, "swift_deallocPartialClassInstance");
    atomic_store(&realDeallocatePartial, deallocate);
  }
  cleak_tracker_deallocated((uintptr_t)object);
  cleak_deallocation_observer current = atomic_load_explicit(&observer, memory_order_acquire);
  if (current != NULL) current((uintptr_t)object);
  deallocate(object, metadata, size, alignMask);
}
