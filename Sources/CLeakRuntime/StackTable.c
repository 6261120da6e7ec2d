#define _GNU_SOURCE
#include "StackTable.h"
#include "CLeakRuntime.h"
#include "SpinLock.h"
#include "SwiftConcurrencyLayout.h"
#include "ReadableMemory.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

// MARK: - This thread's stack

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

// MARK: - Async functions

// An async function is not called by its caller's frame: the concurrency runtime runs it when
// its task is resumed, and its logical caller waits in an async context. Its frame keeps its own
// context right below its frame record, and each context links to its caller's. Memory of that
// chain stays allocated while it is walked: a context is freed by its caller (with
// `swift_task_dealloc`, after the function returned), the task allocator frees in the reverse
// order of allocation, so no context is freed before the ones allocated after it (its callee's),
// and only the task, which runs on this thread now, frees them. The first context of a task has
// no parent (its `resumeParent` is the runtime's `completeTask…`) and lies in the task's own
// allocation, which is freed at the end of the task's destruction, after every destructor it runs
// (which may allocate) has returned.

/// How many bytes before a return address `isTaskResumption` reads, at most.
static const uintptr_t taskResumptionLength = 8;

/// The return addresses that may follow a task resumption: in the executable segment of the
/// concurrency runtime (`libswift_Concurrency.so`), where the calls that resume tasks are, past
/// its first `taskResumptionLength` bytes; empty until `cleak_stack_learn_concurrency_runtime`
/// finds it. The size is stored last and read first.
static _Atomic uintptr_t resumptionStart = 0, resumptionSize = 0;

static int findExecutableSegment(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  uintptr_t probe = (uintptr_t)data;
  for (int index = 0; index < info->dlpi_phnum; index++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[index];
    uintptr_t start = info->dlpi_addr + header->p_vaddr;
    if (header->p_type != PT_LOAD || (header->p_flags & PF_X) == 0 || probe < start || probe >= start + header->p_memsz) continue;
    if (header->p_memsz <= taskResumptionLength) return 1;
    atomic_store_explicit(&resumptionStart, start + taskResumptionLength, memory_order_relaxed);
    atomic_store_explicit(&resumptionSize, header->p_memsz - taskResumptionLength, memory_order_release);
    return 1;
  }
  return 0;
}

void cleak_stack_learn_concurrency_runtime(void) {
#if defined(__x86_64__)  // isTaskResumption knows x86-64's instructions only
  void *runtimeFunction = dlsym(RTLD_DEFAULT, "swift_job_run");
  if (runtimeFunction != NULL) dl_iterate_phdr(findExecutableSegment, runtimeFunction);
#endif
}

/// Whether the instructions that end at `returnAddress` are the call with which the runtime
/// resumes a task, `task->ResumeTask(task->ResumeContext)`: `mov ResumeContext(%base), %r14` (the
/// register that carries an async context) and `call *ResumeTask(%base)`, with 8-bit
/// displacements. The function that call runs is an async function, and it keeps the context it
/// was given below its frame record. `returnAddress` lies in the runtime's code at least
/// `taskResumptionLength` bytes from its start (`resumptionStart`), so every byte read is mapped.
static bool isTaskResumption(uintptr_t returnAddress) {
#if defined(__x86_64__)
  enum { opcodeCall = 0xFF, callModRM = 0x50, opcodeMove = 0x8B, moveToR14ModRM = 0x70, rexB = 0x41, rexWR = 0x4C };
  const uint8_t *call = (const uint8_t *)returnAddress - 3;  // FF /2, mod 01: call *disp8(%base)
  unsigned base = call[1] & 7;
  if (call[0] != opcodeCall || (call[1] & 0xF8) != callModRM || base == 4 ||
      call[2] != offsetof(cleak_async_task_prefix, resumeTask)) {
    return false;
  }
  bool extendedBase = call[-1] == rexB;  // r8 to r15
  const uint8_t *move = call - (extendedBase ? 1 : 0) - 4;  // REX.W+R 8B /r, mod 01: mov disp8(%base), %r14
  return move[0] == (rexWR | (extendedBase ? 1 : 0)) && move[1] == opcodeMove && move[2] == (moveToR14ModRM | base) &&
         move[3] == offsetof(cleak_async_task_prefix, resumeContext);
#else
  (void)returnAddress;
  return false;
#endif
}

/// The return addresses of the logical callers of the async function whose context is `context`
/// (innermost first): each context's `resumeParent`, stored one past the resume point, as a
/// return address is one past its call (a symbolizer looks a return address up one byte before
/// it, and the resume point is the first byte of the caller's resume partial function). Stops at
/// a null or implausible context or resume point, and at a context met again (Brent's cycle
/// detection: each context is compared with one saved at steps 1, 2, 4, 8, …).
static int walkAsyncCallers(uintptr_t context, uintptr_t *frames, int capacity) {
  int depth = 0, steps = 0, stepsToSave = 1;
  uintptr_t saved = context;
  while (depth < capacity && cleak_is_plausible_address(context, cleak_async_context_alignment)) {
    const cleak_async_context *record = (const cleak_async_context *)context;
    uintptr_t resumePoint = record->resumeParent;
    if (!cleak_is_plausible_address(resumePoint, 1)) break;
    frames[depth++] = resumePoint + 1;
    context = record->parent;
    if (context == saved) break;
    if (++steps == stepsToSave) {
      saved = context;
      stepsToSave *= 2;
      steps = 0;
    }
  }
  return depth;
}

/// The async callers of the function whose frame record is at `frame`, into `frames` from
/// `depth` on, when it is an async function's (the runtime's task resumption called it, and the
/// word below its record is in this thread's stack, which starts at `stackLow`); -1 when it is
/// not. Out of the walk's loop, which only tests whether a frame may be one.
__attribute__((noinline, cold)) static int asyncCallersOfFrame(uintptr_t frame, uintptr_t stackLow, uintptr_t *frames, int depth,
                                                               int capacity) {
  const cleak_frame_record *record = (const cleak_frame_record *)frame;
  if (frame - stackLow < cleak_async_context_below_frame_record || !isTaskResumption(record->returnAddress)) return -1;
  uintptr_t context = *(const uintptr_t *)(frame - cleak_async_context_below_frame_record);
  return walkAsyncCallers(context, frames + depth, capacity - depth);
}

// MARK: - Where a task waits

typedef struct {
  uintptr_t task;
  uintptr_t *frames;
  int capacity;
  int depth;
} suspension_t;

static void readSuspension(void *argument) {
  suspension_t *suspension = argument;
  const cleak_async_task_prefix *task = (const cleak_async_task_prefix *)suspension->task;
  uintptr_t resumePoint = task->resumeTask;
  if (suspension->capacity < 1 || !cleak_is_plausible_address(resumePoint, 1)) return;
  suspension->frames[0] = resumePoint + 1;
  suspension->depth = 1 + walkAsyncCallers(task->resumeContext, suspension->frames + 1, suspension->capacity - 1);
}

int cleak_task_suspension_frames(uintptr_t task, uintptr_t *frames, int capacity) {
  if (!cleak_is_readable(task, sizeof(cleak_async_task_prefix))) return 0;
  suspension_t suspension = {task, frames, capacity, 0};
  return cleak_run_guarded(readSuspension, &suspension) ? suspension.depth : 0;
}

// MARK: - The frame-pointer walk

int cleak_stack_walk(uintptr_t framePointer, uintptr_t *frames, int capacity) {
  const stack_bounds_t *stack = currentThreadStack();
  uintptr_t low = stack->low, high = stack->high;
  uintptr_t resumptionBytes = atomic_load_explicit(&resumptionSize, memory_order_acquire);
  uintptr_t resumptionFrom = atomic_load_explicit(&resumptionStart, memory_order_relaxed);
  uintptr_t frame = framePointer;
  int depth = 0;
  // Each frame pointer points at a frame record (cleak_frame_record). Code built without frame
  // pointers leaves any value in the register: the bounds are tested without an addition that
  // could wrap (a caller of -8 once passed as a record below the stack's top).
  while (depth < capacity && frame >= low && frame < high && high - frame >= sizeof(cleak_frame_record) &&
         (frame & (sizeof(uintptr_t) - 1)) == 0) {
    const cleak_frame_record *record = (const cleak_frame_record *)frame;
    uintptr_t caller = record->caller, returnAddress = record->returnAddress;
    if (returnAddress < cleak_lowest_mapped_address) break;
    // An async function's frame, which the runtime resumed: its callers are the ones its context
    // names, and the runtime's frames that resumed it are left out.
    if (__builtin_expect(returnAddress - resumptionFrom < resumptionBytes, 0)) {
      int asyncCallers = asyncCallersOfFrame(frame, low, frames, depth, capacity);
      if (asyncCallers >= 0) return depth + asyncCallers;
    }
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
static const size_t maxStacks = CLEAK_MAX_STACKS;

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

/// Whether two stacks of `depth` frames are the same: a loop the compiler keeps inline, where a
/// call to `memcmp` (through the PLT, then its dispatch on the CPU's features) cost about as much
/// as the walk on the allocation loops with stacks (8% of their time).
static inline bool sameFrames(const uintptr_t *left, const uintptr_t *right, int depth) {
  for (int index = 0; index < depth; index++) {
    if (left[index] != right[index]) return false;
  }
  return true;
}

/// The two stacks this thread interned last (copies of their records), the last first: an
/// allocation in a loop repeats one (or, with two allocation sites, one of two), and comparing
/// frames is cheaper than hashing them (a chain of multiplications, half the cost of interning on
/// the allocation loops). A different stack differs mostly in its first frame.
static _Thread_local stack_record_t lastStacks[2] __attribute__((tls_model("initial-exec")));

/// Makes `record` the last stack interned.
static inline void rememberLast(const stack_record_t *record) {
  if (lastStacks[0].id != record->id) {
    stack_record_t copy = *record;  // `record` may be lastStacks[1]
    lastStacks[1] = lastStacks[0];
    lastStacks[0] = copy;
  }
}

uint32_t cleak_stack_intern(const uintptr_t *frames, int depth) {
  for (int index = 0; index < 2; index++) {
    const stack_record_t *last = &lastStacks[index];
    if (last->depth == (uint32_t)depth && last->id != 0 && sameFrames(last->frames, frames, depth)) {
      uint32_t id = last->id;
      if (index != 0) rememberLast(last);
      return id;
    }
  }
  uint64_t hash = hashFrames(frames, depth);
  stack_record_t *recent = &recentStacks[hash % CACHE_SIZE];
  if (recent->hash == hash && recent->depth == (uint32_t)depth && sameFrames(recent->frames, frames, depth)) {
    rememberLast(recent);
    return recent->id;
  }
  stack_record_t found = internShared(frames, depth, hash);
  if (found.id != 0) {
    *recent = found;
    rememberLast(&found);
  }
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
