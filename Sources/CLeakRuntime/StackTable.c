#define _GNU_SOURCE
#include "StackTable.h"
#include "CLeakRuntime.h"
#include "SpinLock.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// MARK: - The frame-pointer walk

typedef struct {
  uintptr_t low, high;  // high == 0: not found yet
} stack_bounds_t;

static _Thread_local stack_bounds_t threadStack __attribute__((tls_model("initial-exec"))) = {0, 0};

static const stack_bounds_t *currentThreadStack(void) {
  if (__builtin_expect(threadStack.high == 0, 0)) {
    pthread_attr_t attributes;
    void *address = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
      pthread_attr_getstack(&attributes, &address, &size);
      pthread_attr_destroy(&attributes);
    }
    threadStack = (stack_bounds_t){(uintptr_t)address, address ? (uintptr_t)address + size : 1};
  }
  return &threadStack;
}

bool cleak_stack_contains(uintptr_t address) {
  const stack_bounds_t *stack = currentThreadStack();
  return address >= stack->low && address < stack->high;
}

int cleak_stack_walk(uintptr_t framePointer, uintptr_t *frames, int capacity) {
  const stack_bounds_t *stack = currentThreadStack();
  uintptr_t frame = framePointer;
  int depth = 0;
  // Each frame pointer points at a frame record (cleak_frame_record).
  while (depth < capacity && frame >= stack->low && frame + sizeof(cleak_frame_record) <= stack->high &&
         (frame & (sizeof(uintptr_t) - 1)) == 0) {
    const cleak_frame_record *record = (const cleak_frame_record *)frame;
    uintptr_t caller = record->caller, returnAddress = record->returnAddress;
    if (returnAddress < cleak_lowest_mapped_address) break;
    frames[depth++] = returnAddress;
    if (caller <= frame) break;  // 0 marks the outermost frame
    frame = caller;
  }
  return depth;
}

// MARK: - Interning

typedef struct {
  uint64_t hash;  // 0: empty slot
  uint32_t depth;
  uint32_t id;
  uintptr_t *frames;  // never freed: cached pointers stay valid
} stack_record_t;

static atomic_flag stackLock = ATOMIC_FLAG_INIT;
static stack_record_t *stackSlots = NULL;  // open addressing by hash
static size_t stackCapacity = 0, stackCount = 0;
static uint32_t *stackIndex = NULL;  // id - 1 -> slot
static const size_t maxStacks = 1 << 20;

/// The stacks this thread interned last, by hash: most allocations repeat a recent stack.
#define CACHE_SIZE 64
static _Thread_local stack_record_t recentStacks[CACHE_SIZE] __attribute__((tls_model("initial-exec")));

static inline uint64_t hashFrames(const uintptr_t *frames, int depth) {
  // Two independent multiply chains halve the latency of one.
  uint64_t even = 0x9E3779B97F4A7C15ULL, odd = (uint64_t)depth;
  int index = 0;
  for (; index + 1 < depth; index += 2) {
    even = (even ^ frames[index]) * 0xff51afd7ed558ccdULL;
    odd = (odd ^ frames[index + 1]) * 0xc4ceb9fe1a85ec53ULL;
  }
  if (index < depth) even = (even ^ frames[index]) * 0xff51afd7ed558ccdULL;
  uint64_t hash = even ^ (odd >> 31) ^ (odd << 33);
  hash ^= hash >> 29;
  return hash ? hash : 1;
}

static int growTable(void) {
  size_t capacity = stackCapacity ? stackCapacity * 2 : 4096;
  stack_record_t *slots = calloc(capacity, sizeof(stack_record_t));
  uint32_t *index = realloc(stackIndex, capacity * sizeof(uint32_t));
  if (index != NULL) stackIndex = index;
  if (slots == NULL || index == NULL) {
    free(slots);
    return 0;
  }
  for (size_t old = 0; old < stackCapacity; old++) {
    if (stackSlots[old].hash == 0) continue;
    size_t slot = stackSlots[old].hash & (capacity - 1);
    while (slots[slot].hash != 0) slot = (slot + 1) & (capacity - 1);
    slots[slot] = stackSlots[old];
    stackIndex[slots[slot].id - 1] = (uint32_t)slot;
  }
  free(stackSlots);
  stackSlots = slots;
  stackCapacity = capacity;
  return 1;
}

/// Finds or adds the stack in the shared table; returns its record (id 0 when it could not be added).
static stack_record_t internShared(const uintptr_t *frames, int depth, uint64_t hash) {
  stack_record_t found = {hash, (uint32_t)depth, 0, NULL};
  cleak_spin_lock(&stackLock);
  if ((stackCount + 1) * 2 <= stackCapacity || growTable()) {
    size_t mask = stackCapacity - 1, slot = hash & mask;
    while (stackSlots[slot].hash != 0) {
      stack_record_t *candidate = &stackSlots[slot];
      if (candidate->hash == hash && candidate->depth == (uint32_t)depth &&
          memcmp(candidate->frames, frames, sizeof(uintptr_t) * (size_t)depth) == 0) {
        found = *candidate;
        break;
      }
      slot = (slot + 1) & mask;
    }
    if (found.id == 0 && stackCount < maxStacks) {
      uintptr_t *copy = malloc(sizeof(uintptr_t) * (size_t)depth);
      if (copy != NULL) {
        memcpy(copy, frames, sizeof(uintptr_t) * (size_t)depth);
        found = (stack_record_t){hash, (uint32_t)depth, (uint32_t)(stackCount + 1), copy};
        stackSlots[slot] = found;
        stackIndex[stackCount] = (uint32_t)slot;
        stackCount += 1;
      }
    }
  }
  cleak_spin_unlock(&stackLock);
  return found;
}

uint32_t cleak_stack_intern(const uintptr_t *frames, int depth) {
  uint64_t hash = hashFrames(frames, depth);
  stack_record_t *recent = &recentStacks[hash % CACHE_SIZE];
  if (recent->hash == hash && recent->depth == (uint32_t)depth &&
      memcmp(recent->frames, frames, sizeof(uintptr_t) * (size_t)depth) == 0) {
    return recent->id;
  }
  stack_record_t found = internShared(frames, depth, hash);
  if (found.id != 0) *recent = found;
  return found.id;
}

int cleak_tracker_stack(uint32_t id, uintptr_t *frames, int capacity) {
  int depth = 0;
  cleak_spin_lock(&stackLock);
  if (id >= 1 && id <= stackCount) {
    stack_record_t *stack = &stackSlots[stackIndex[id - 1]];
    depth = (int)stack->depth < capacity ? (int)stack->depth : capacity;
    memcpy(frames, stack->frames, sizeof(uintptr_t) * (size_t)depth);
  }
  cleak_spin_unlock(&stackLock);
  return depth;
}

void cleak_stack_table_lock(void) {
  cleak_spin_lock(&stackLock);
}

void cleak_stack_table_unlock(void) {
  cleak_spin_unlock(&stackLock);
}
