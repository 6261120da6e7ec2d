#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include "CLeakRuntime.h"
#include "AddressTable.h"
#include "ExecutableRuntimeHooks.h"
#include "EntryBlocks.h"
#include "ForkSafety.h"
#include "StackTable.h"
#include "SwiftConcurrencyLayout.h"
#include "SwiftAllocationABI.h"
#include "SwiftRuntime.h"

#include <dlfcn.h>
#include <libunwind.h>
#include <link.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

// The allocation tracker: the interposed runtime entry points record every Swift class instance
// allocated while recording is on, with its metadata, generation and, optionally, allocation
// stack, and forget it when it is freed. Objects are kept in per-thread entry blocks found again
// through a trailer the object carries (EntryBlocks.h); objects that cannot carry one are kept in
// an address table (AddressTable.h). The hooks call no Swift code and allocate only with malloc
// (a new block, a new stack), so they cannot re-enter.

/// The tracker's state that every interposed call reads (its gate), and, for the loader of
/// `leak-detector run`, where each call goes (InterposerFastPath.h). The gate's fields are named
/// by the macros below; the rest is filled when the runtime's entry points are resolved.
cleak_interposer_fast_path cleak_tracker_fast_path = {0};
#define recording cleak_tracker_fast_path.gate.recording
#define tableInUse cleak_tracker_fast_path.gate.tableInUse
#define untrackedAddressBits cleak_tracker_fast_path.gate.untrackedAddressBits
#define trailerReadsNeedNoCheck cleak_tracker_fast_path.gate.trailersReadable
#define sampleBytes cleak_tracker_fast_path.gate.sampleBytes

/// The alignment of every object tracked in sampled mode, and so the mark that an object was
/// sampled: an unsampled object lies at such an address once in 4 times (`malloc` aligns to
/// 16), and only then is its trailer read (and the address table only for a class it holds).
/// Aligning costs the sampled allocation alone, one in thousands: glibc's `memalign` takes a
/// block larger by the alignment and frees what is left on either side, which at 64 bytes is
/// always small enough for its fast bins. A larger alignment would filter more but frees larger
/// pieces, which merge with the top of the heap and make glibc consolidate every fast bin: 1024
/// made a program that keeps 200,000 small objects alive 1.3× slower when sampled.
enum { sampledAlignment = 64 };
static atomic_bool capturingStacks = false;
static atomic_uint currentGeneration = 0;
static atomic_uint sampleInterval = 1;
static _Thread_local unsigned sampleCounter __attribute__((tls_model("initial-exec"))) = 0;
static atomic_uintptr_t stdlibStart = 0, stdlibEnd = 0;

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

/// The module descriptor of the standard library linked into the executable (`$ssMXM`), when
/// the program runs on a runtime of its own: its classes lie in the executable with the
/// program's, and are told apart by their module.
static atomic_uintptr_t executableStandardLibrary = 0;

/// The module that declares the type of the context descriptor `descriptor`: its outermost
/// parent (a parent is a relative pointer, indirect when its low bit is set), or 0.
static uintptr_t moduleOf(uintptr_t descriptor) {
  for (int depth = 0; descriptor != 0 && depth < 16; depth++) {
    const cleak_class_descriptor_layout *context = (const cleak_class_descriptor_layout *)descriptor;
    if ((context->flags & cleak_context_descriptor_kind_mask) == 0) return descriptor;  // a module
    if (context->parent == 0) return 0;
    uintptr_t target = (uintptr_t)&context->parent + (uintptr_t)(intptr_t)(context->parent & ~1);
    descriptor = (context->parent & 1) ? *(const uintptr_t *)target : target;
  }
  return 0;
}

/// Whether a class is defined in the standard library: its metadata's class descriptor lies in
/// libswiftCore, or, in a program that has its own runtime, belongs to its `Swift` module.
static inline bool isStandardLibraryClass(uintptr_t metadata) {
  uintptr_t descriptor = cleak_class_descriptor(metadata);
  if (descriptor >= atomic_load_explicit(&stdlibStart, memory_order_relaxed) &&
      descriptor < atomic_load_explicit(&stdlibEnd, memory_order_relaxed)) {
    return true;
  }
  uintptr_t standardLibrary = atomic_load_explicit(&executableStandardLibrary, memory_order_relaxed);
  return __builtin_expect(standardLibrary != 0, 0) && moduleOf(descriptor) == standardLibrary;
}

static inline int isTrackableClass(uintptr_t metadata) {
  uintptr_t kind = cleak_metadata_kind(metadata);
  if (kind != cleak_metadata_kind_class && kind <= cleak_metadata_kind_last_enumerated) return 0;  // contexts, boxes, tasks
  return !isStandardLibraryClass(metadata);
}

/// Whether an object can carry a trailer. One with tail-allocated elements cannot: its owner may
/// use the whole allocation (`ManagedBuffer.capacity` asks `malloc_usable_size`), even when it
/// was created with no elements. Such an object is allocated with more than its metadata's
/// instance size, or is an instance of a subclass of the standard library's `ManagedBuffer`.
static inline bool canCarryTrailer(uintptr_t metadata, size_t size) {
  if (size != cleak_class_instance_size(metadata)) return false;
  for (uintptr_t superclass = cleak_superclass(metadata); superclass != 0; superclass = cleak_superclass(superclass)) {
    if (isStandardLibraryClass(superclass)) return false;
  }
  return true;
}

// MARK: - Hooks (called from the interposers)

/// The allocation stack of an object allocated in the frame above `framePointer` (the
/// interposer's): its return addresses from the allocating function outwards. When the walk finds
/// no frame (the interposer ran off this thread's stack), libunwind walks it instead, and the
/// stack starts at the interposer's return address, as the walk's would.
__attribute__((noinline)) static uint32_t allocationStack(uintptr_t framePointer) {
  uintptr_t frames[CLEAK_MAX_STACK_DEPTH];
  int depth = cleak_stack_walk(framePointer, frames, CLEAK_MAX_STACK_DEPTH);
  if (depth == 0) {
    enum { ownFrames = 4 };  // unw_backtrace, this function, allocateTracked, the interposer
    void *unwound[CLEAK_MAX_STACK_DEPTH + ownFrames];
    int count = unw_backtrace(unwound, CLEAK_MAX_STACK_DEPTH + ownFrames);
    uintptr_t returnAddress = ((const cleak_frame_record *)framePointer)->returnAddress;
    int first = 0;
    while (first < count && (uintptr_t)unwound[first] != returnAddress) first++;
    depth = count - first < CLEAK_MAX_STACK_DEPTH ? count - first : CLEAK_MAX_STACK_DEPTH;
    if (depth <= 0) return 0;
    memcpy(frames, unwound + first, sizeof(uintptr_t) * (size_t)depth);
  }
  return cleak_stack_intern(frames, depth);
}

// MARK: - Sampling by bytes

/// Bytes this thread may still allocate before its next sampled allocation.
static _Thread_local int64_t bytesUntilSample __attribute__((tls_model("initial-exec"))) = 0;
static _Thread_local bool sampleArmed __attribute__((tls_model("initial-exec"))) = false;
static _Thread_local uint64_t randomState __attribute__((tls_model("initial-exec"))) = 0;
/// The sampled allocations by stack id, (count, bytes, metadata of the last one) triples: mapped
/// when sampling starts (not in the image's data, which a capture scans for roots).
static _Atomic(_Atomic uint64_t *) sampledTotals = NULL;
enum { sampledTotalsWords = 3 };
static const size_t sampledTotalsBytes = sizeof(uint64_t) * sampledTotalsWords * ((size_t)CLEAK_MAX_STACKS + 1);

/// A uniform random number (xorshift64*), seeded per thread from its stack address and the clock.
static uint64_t nextRandom(void) {
  if (randomState == 0) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    randomState = ((uint64_t)(uintptr_t)&now * 0x9E3779B97F4A7C15ULL) ^ (uint64_t)now.tv_nsec ^ ((uint64_t)now.tv_sec << 32);
    if (randomState == 0) randomState = 0x2545F4914F6CDD1DULL;
  }
  randomState ^= randomState >> 12;
  randomState ^= randomState << 25;
  randomState ^= randomState >> 27;
  return randomState * 0x2545F4914F6CDD1DULL;
}

/// An exponentially distributed distance with mean `mean` bytes (a Poisson process over the
/// bytes allocated, as Go's and tcmalloc's heap profilers sample).
static int64_t sampleDistance(uint64_t mean) {
  double uniform = (double)((nextRandom() >> 11) + 1) * (1.0 / 9007199254740992.0);  // (0, 1]
  double distance = -log(uniform) * (double)mean;
  return distance < 1 ? 1 : distance > (double)(INT64_MAX / 4) ? INT64_MAX / 4 : (int64_t)distance;
}

/// The slow path of the countdown: a thread's first allocation arms it (and is not sampled, so
/// that no thread's first object is always taken); later, the allocation that crosses zero is
/// sampled and the next distance drawn.
__attribute__((noinline)) static bool crossesSamplePoint(uint64_t mean) {
  bytesUntilSample = sampleDistance(mean);
  if (!sampleArmed) {
    sampleArmed = true;
    return false;
  }
  return true;
}

/// Whether the allocation of `size` bytes is the sampled one, in sampled mode.
static inline bool samplesAllocation(size_t size, uint64_t mean) {
  int64_t left = bytesUntilSample - (int64_t)size;
  if (__builtin_expect(left > 0, 1)) {
    bytesUntilSample = left;
    return false;
  }
  return crossesSamplePoint(mean);
}

static void countSampledAllocation(uint32_t stack, size_t size, uintptr_t metadata) {
  _Atomic uint64_t *totals = atomic_load_explicit(&sampledTotals, memory_order_acquire);
  if (totals == NULL || stack == 0 || stack > CLEAK_MAX_STACKS) return;
  _Atomic uint64_t *record = &totals[sampledTotalsWords * stack];
  atomic_fetch_add_explicit(&record[0], 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&record[1], size, memory_order_relaxed);
  atomic_store_explicit(&record[2], metadata, memory_order_relaxed);
}

void cleak_tracker_start_sampling(uint64_t meanBytes) {
  if (meanBytes != 0 && atomic_load(&sampledTotals) == NULL) {
    void *memory = mmap(NULL, sampledTotalsBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory != MAP_FAILED) {
      _Atomic uint64_t *expected = NULL;
      if (!atomic_compare_exchange_strong(&sampledTotals, &expected, (_Atomic uint64_t *)memory)) munmap(memory, sampledTotalsBytes);
    }
  }
  // Only sampled objects are aligned; anything already tracked (explicitly, or by a full
  // tracking still under way) may lie anywhere.
  atomic_store(&untrackedAddressBits, meanBytes != 0 && cleak_tracker_count() == 0 ? (uintptr_t)sampledAlignment - 1 : 0);
  atomic_store(&sampleBytes, meanBytes);
}

uint64_t cleak_tracker_sample_interval(void) {
  return atomic_load(&sampleBytes);
}

bool cleak_tracker_sampled_totals(uint32_t stack, uint64_t *count, uint64_t *bytes, uintptr_t *metadata) {
  _Atomic uint64_t *totals = atomic_load_explicit(&sampledTotals, memory_order_acquire);
  if (totals == NULL || stack == 0 || stack > CLEAK_MAX_STACKS) return false;
  _Atomic uint64_t *record = &totals[sampledTotalsWords * stack];
  *count = atomic_load_explicit(&record[0], memory_order_relaxed);
  *bytes = atomic_load_explicit(&record[1], memory_order_relaxed);
  *metadata = (uintptr_t)atomic_load_explicit(&record[2], memory_order_relaxed);
  return *count > 0;
}

// MARK: - Recording

static inline bool samplesThisAllocation(void) {
  if (!atomic_load_explicit(&capturingStacks, memory_order_relaxed)) return false;
  unsigned interval = atomic_load_explicit(&sampleInterval, memory_order_relaxed);
  return interval <= 1 || ++sampleCounter % interval == 0;
}

/// What a task counts for in the byte countdown of sampled mode: its first allocation (the task
/// and its initial slab) is about this size, and is not a `malloc` block that could be asked.
enum { taskSampleBytes = 1024 };

/// Whether a new task's creation stack is taken: as an object's would be, except that in sampled
/// mode a task is one more allocation of ``taskSampleBytes`` in the countdown (a server that
/// makes a task per request then walks no stack per request).
static inline bool samplesTaskCreation(void) {
  uint64_t mean = atomic_load_explicit(&sampleBytes, memory_order_relaxed);
  if (mean == 0) return samplesThisAllocation();
  return samplesAllocation(taskSampleBytes, mean) && atomic_load_explicit(&capturingStacks, memory_order_relaxed);
}

/// Allocates and records an object while recording is on (inline in the hooks' slow paths: one
/// frame, that of the function the hook tail-called).
__attribute__((always_inline)) static inline void *allocateTracked(cleak_allocate_object_t allocate, const void *metadata, size_t size,
                                                       size_t alignMask, uintptr_t framePointer) {
  uintptr_t type = (uintptr_t)metadata;
  if (!isTrackableClass(type)) return allocate(metadata, size, alignMask);
  bool carriesTrailer = canCarryTrailer(type, size);
  uintptr_t untracked = atomic_load_explicit(&untrackedAddressBits, memory_order_relaxed);
  void *object = allocate(metadata, carriesTrailer ? cleak_trailer_end(size) : size, alignMask | untracked);
  if (!atomic_load_explicit(&tableInUse, memory_order_relaxed)) atomic_store(&tableInUse, true);
  // Tracking changed mode under this hook (it read the bits of sampled mode, the object lies
  // elsewhere): every deallocation looks again, before the object can reach one.
  if (__builtin_expect(((uintptr_t)object & atomic_load(&untrackedAddressBits)) != 0, 0)) atomic_store(&untrackedAddressBits, 0);
  uint32_t stack = samplesThisAllocation() ? allocationStack(framePointer) : 0;
  if (atomic_load_explicit(&sampleBytes, memory_order_relaxed) != 0) countSampledAllocation(stack, size, type);
  uint32_t generation = atomic_load_explicit(&currentGeneration, memory_order_relaxed);
  uint32_t number = 0;
  tracked_entry_t *entry = carriesTrailer ? cleak_entries_take(&number) : NULL;
  if (entry != NULL) {
    cleak_entries_publish(entry, number, (uintptr_t)object, type, generation, stack, size);
  } else {
    cleak_address_table_insert((cleak_tracked_object){(uintptr_t)object, type, generation, stack, size, 0});
  }
  return object;
}

// `trailerReadsNeedNoCheck`: whether the trailer of an object without one may be read without
// asking the allocator. With glibc's `malloc`, the 8 bytes after an instance lie in its block or
// in the header of the next block, always mapped; another allocator (a preloaded jemalloc, a
// sanitizer's) makes no such promise, so there a trailer is read only when `malloc_usable_size`
// says it is in the block (and never asked about an object the optimizer put on this thread's
// stack: such objects reach the deallocation entry points too, and are not the allocator's).

static bool mallocIsGlibcs(void) {
  Dl_info info;
  void *symbol = dlsym(RTLD_DEFAULT, "malloc");
  return symbol != NULL && dladdr(symbol, &info) != 0 && info.dli_fname != NULL && strstr(info.dli_fname, "/libc.so") != NULL;
}

/// Forgets an object of `size` bytes (its instance size) that is being freed.
__attribute__((always_inline)) static inline void forget(uintptr_t object, size_t size) {
  bool trailerReadable = atomic_load_explicit(&trailerReadsNeedNoCheck, memory_order_relaxed) ||
                         (!cleak_stack_contains(object) && malloc_usable_size((void *)object) >= cleak_trailer_end(size));
  if (trailerReadable && cleak_entries_forget(object, size)) return;
  if (cleak_address_table_may_hold(object)) cleak_address_table_remove(object);
}

void cleak_tracker_forget(const cleak_tracked_object *entry) {
  if (entry->location != 0) {
    cleak_entries_forget_entry((uint32_t)entry->location, entry->object);
  } else {
    cleak_address_table_remove(entry->object);
  }
}

// MARK: - Control and queries

/// What the hooks need to know about the process, which does not change while it runs.
static void learnAboutTheProcess(void) {
  void *real = dlsym(RTLD_NEXT, "swift_allocObject");
  if (real != NULL) dl_iterate_phdr(findImage, real);
  atomic_store(&trailerReadsNeedNoCheck, mallocIsGlibcs());
  cleak_stack_learn_concurrency_runtime();
}

void cleak_tracker_start(bool stacks, unsigned interval) {
  static pthread_once_t learned = PTHREAD_ONCE_INIT;
  pthread_once(&learned, learnAboutTheProcess);
  atomic_store(&sampleInterval, interval ? interval : 1);
  atomic_store(&capturingStacks, stacks);
  atomic_store(&recording, true);
}

void cleak_tracker_stop(void) {
  atomic_store(&recording, false);
  atomic_store(&sampleBytes, 0);
  _Atomic uint64_t *totals = atomic_load(&sampledTotals);
  if (totals != NULL) madvise((void *)totals, sampledTotalsBytes, MADV_DONTNEED);  // back to zeros
  cleak_entries_clear();
  cleak_address_table_clear();
  // A hook that read the flags before they were cleared may still record: the lookups stay on
  // (at a small cost per deallocation) until nothing is tracked.
  if (cleak_tracker_count() == 0) atomic_store(&tableInUse, false);
}

void cleak_tracker_lock_for_fork(void) {
  cleak_stack_table_lock();
  cleak_address_table_lock_all();
}

void cleak_tracker_unlock_after_fork(void) {
  cleak_address_table_unlock_all();
  cleak_stack_table_unlock();
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
  atomic_store(&untrackedAddressBits, 0);
  atomic_store(&tableInUse, true);
  cleak_address_table_insert((cleak_tracked_object){object, metadata, atomic_load(&currentGeneration), 0, size, 0});
}

size_t cleak_tracker_count(void) {
  return cleak_entries_count() + cleak_address_table_count();
}

size_t cleak_tracker_entry_capacity(void) {
  return cleak_entries_capacity();
}

size_t cleak_tracker_copy_entries(cleak_tracked_object *buffer, size_t capacity, int64_t generation) {
  size_t copied = cleak_entries_copy(buffer, 0, capacity, generation);
  return cleak_address_table_copy(buffer, copied, capacity, generation);
}

// MARK: - Interposers

// Symbol interposition of the runtime's allocation entry points (Documentation/RuntimeNotes.md,
// "Interposing the allocation entry points"): this library's definitions win over libswiftCore's for every call through the PLT (user code,
// Foundation, Dispatch, Concurrency). The real functions are resolved on first call, not in a
// constructor: libFoundation allocates Swift objects before constructors of the executable run.
// The runtime's `_swift_allocObject` pointer hooks are never used: on Swift 6.3 they crash code
// that uses Foundation.


static _Atomic(cleak_deallocate_partial_class_instance_t) realDeallocatePartial = NULL;
static atomic_int interposedCalls = 0;

/// Forgets an object whose memory is about to be freed, and tells the observer. An object of
/// sampled mode's unsampled addresses is not looked for.
__attribute__((always_inline)) static inline void forgetDeallocated(void *object, size_t size) {
  if (__builtin_expect(atomic_load_explicit(&tableInUse, memory_order_relaxed), 0) &&
      ((uintptr_t)object & atomic_load_explicit(&untrackedAddressBits, memory_order_relaxed)) == 0) {
    forget((uintptr_t)object, size);
  }
  cleak_deallocation_observer current = atomic_load_explicit(&cleak_tracker_fast_path.gate.observer, memory_order_acquire);
  if (__builtin_expect(current != NULL, 0)) current((uintptr_t)object);
}

void cleak_set_deallocation_observer(cleak_deallocation_observer newObserver) {
  atomic_store_explicit(&cleak_tracker_fast_path.gate.observer, newObserver, memory_order_release);
}

bool cleak_interposition_is_active(void) {
  return atomic_load(&interposedCalls) > 0;
}

/// The runtime's `swift_allocObject`, or NULL before the first call resolves it.
static inline cleak_allocate_object_t realAllocate(void) {
  return __atomic_load_n(&cleak_tracker_fast_path.allocate, __ATOMIC_RELAXED);
}

/// The runtime's `swift_allocObject`, looked up on the first call.
__attribute__((noinline)) static cleak_allocate_object_t resolveAllocate(void) {
  cleak_allocate_object_t allocate = (cleak_allocate_object_t)dlsym(RTLD_NEXT, "swift_allocObject");
  __atomic_store_n(&cleak_tracker_fast_path.allocate, allocate, __ATOMIC_SEQ_CST);
  atomic_store(&interposedCalls, 1);
  return allocate;
}

/// An allocation the hook could not pass on: the real function unresolved, or one to record.
/// `framePointer` is the frame of the function the hook passed the call to, whose return
/// address is in the allocating code: it starts the stack walk.
__attribute__((always_inline)) static inline void *allocateRecorded(cleak_allocate_object_t allocate, const void *metadata, size_t size,
                                                                    size_t alignMask, uintptr_t framePointer) {
  if (atomic_load_explicit(&recording, memory_order_relaxed)) {
    uint64_t mean = atomic_load_explicit(&sampleBytes, memory_order_relaxed);
    if (mean == 0 || samplesAllocation(size, mean)) return allocateTracked(allocate, metadata, size, alignMask, framePointer);
  }
  return allocate(metadata, size, alignMask);
}

/// The interposer's slow path, reached by a tail call (so with the allocating code's return
/// address, and a frame of its own for the walk to start at): from this library's
/// `swift_allocObject`, or from the loader's under `leak-detector run`.
__attribute__((noinline)) static void *allocateSlowly(const void *metadata, size_t size, size_t alignMask) {
  cleak_allocate_object_t allocate = realAllocate();
  if (allocate == NULL) allocate = resolveAllocate();
  return allocateRecorded(allocate, metadata, size, alignMask, (uintptr_t)__builtin_frame_address(0));
}

/// Passes the call on to the runtime with a tail call when there is nothing to record (no frame,
/// no saved register), and otherwise to `allocateSlowly`.
void *swift_allocObject(const void *metadata, size_t size, size_t alignMask) {
  cleak_allocate_object_t allocate = realAllocate();
  if (__builtin_expect(allocate != NULL, 1) && cleak_allocation_is_unrecorded(&cleak_tracker_fast_path.gate, &bytesUntilSample, size)) {
    __attribute__((musttail)) return allocate(metadata, size, alignMask);
  }
  __attribute__((musttail)) return allocateSlowly(metadata, size, alignMask);
}

/// Forgets the object, then frees it as `swift_deallocClassInstance` would.
__attribute__((noinline)) static void deallocateWatched(void *object, size_t allocatedSize, size_t allocatedAlignMask) {
  forgetDeallocated(object, allocatedSize);
  swift_deallocObject(object, allocatedSize, allocatedAlignMask);
}

/// The deallocating deinit of every Swift class calls this through the PLT once `deinit` ran. It
/// removes the object from the tracker, tells the observer, then frees the memory with
/// `swift_deallocObject`, which is all the runtime's version does on Linux besides a debug check
/// for objects retained during deinit. An object nothing watches goes to `swift_deallocObject`
/// with a tail call.
void swift_deallocClassInstance(void *object, size_t allocatedSize, size_t allocatedAlignMask) {
  if (cleak_deallocation_is_watched(&cleak_tracker_fast_path.gate, object, allocatedSize)) {
    __attribute__((musttail)) return deallocateWatched(object, allocatedSize, allocatedAlignMask);
  }
  __attribute__((musttail)) return swift_deallocObject(object, allocatedSize, allocatedAlignMask);
}

/// Fills what the loader reads besides the gate: where each thread's countdown lies (the same
/// offset from the thread pointer in every thread: an initial-exec variable is in the static TLS
/// block, in a library loaded with `dlopen` too), and where the calls go.
static void fillFastPathForLoader(void) {
  cleak_tracker_fast_path.bytesUntilSampleOffset = (char *)&bytesUntilSample - (char *)__builtin_thread_pointer();
  cleak_tracker_fast_path.allocateRecorded = allocateSlowly;
  cleak_tracker_fast_path.deallocateObject = swift_deallocObject;
  cleak_tracker_fast_path.deallocateWatched = deallocateWatched;
  if (realAllocate() == NULL) resolveAllocate();
}

const cleak_interposer_fast_path *cleak_interposer_fast_path_for_loader(void) {
  static pthread_once_t filled = PTHREAD_ONCE_INIT;
  pthread_once(&filled, fillFastPathForLoader);
  return realAllocate() != NULL ? &cleak_tracker_fast_path : NULL;
}

/// A failable or throwing initializer that fails frees the partial object here.
void swift_deallocPartialClassInstance(void *object, const void *metadata, size_t size, size_t alignMask) {
  cleak_deallocate_partial_class_instance_t deallocate = atomic_load_explicit(&realDeallocatePartial, memory_order_relaxed);
  if (deallocate == NULL) {
    deallocate = (cleak_deallocate_partial_class_instance_t)dlsym(RTLD_NEXT, "swift_deallocPartialClassInstance");
    atomic_store(&realDeallocatePartial, deallocate);
  }
  forgetDeallocated(object, size);
  deallocate(object, metadata, size, alignMask);
}

// MARK: - Tasks

// Tasks are allocated inside the concurrency runtime, with malloc, and freed there when their
// last reference goes: no interposable call sees them end. The runtime's `swift_task_create`,
// which code that makes a task (`Task {}`, `Task.detached`, a task group's `addTask`) calls
// through the PLT, is interposed instead, and each task it makes is remembered in a ring of the
// latest ones, with where and in which generation it was created: tasks that nothing refers to
// (a leaked task waits on a continuation only it reaches) are found there. A slot is reused by
// a later task, so the ring never grows; the reader checks that each task is still one.

static _Atomic(cleak_task_create_t) realTaskCreate = NULL;
static _Atomic uint64_t taskRegistryNext = 0;
/// Mapped at the first task (not in the image's data, whose words are roots of a capture).
static _Atomic(cleak_tracked_object *) taskRegistry = NULL;
static const size_t taskRegistryBytes = sizeof(cleak_tracked_object) * CLEAK_TASK_REGISTRY_CAPACITY;

__attribute__((noinline)) static cleak_tracked_object *mapTaskRegistry(void) {
  void *memory = mmap(NULL, taskRegistryBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) return NULL;
  cleak_tracked_object *expected = NULL;
  if (atomic_compare_exchange_strong(&taskRegistry, &expected, (cleak_tracked_object *)memory)) return memory;
  munmap(memory, taskRegistryBytes);  // another thread mapped it first
  return expected;
}

cleak_memory_range cleak_task_registry_storage(void) {
  uintptr_t start = (uintptr_t)atomic_load(&taskRegistry);
  return (cleak_memory_range){start, start == 0 ? 0 : start + taskRegistryBytes};
}

__attribute__((noinline)) static cleak_task_create_t resolveTaskCreate(void) {
  cleak_task_create_t create = (cleak_task_create_t)dlsym(RTLD_NEXT, "swift_task_create");
  atomic_store(&realTaskCreate, create);
  return create;
}

/// Remembers a task that `swift_task_create` just made, with the stack that starts at the
/// hook's frame, `framePointer`.
__attribute__((always_inline)) static inline void registerTask(cleak_task_and_context_t made, uintptr_t framePointer) {
  cleak_tracked_object *registry = atomic_load_explicit(&taskRegistry, memory_order_acquire);
  if (__builtin_expect(registry == NULL, 0)) registry = mapTaskRegistry();
  if (made.task != NULL && registry != NULL) {
    uint32_t stack = samplesTaskCreation() ? allocationStack(framePointer) : 0;
    uint64_t slot = atomic_fetch_add_explicit(&taskRegistryNext, 1, memory_order_relaxed) % CLEAK_TASK_REGISTRY_CAPACITY;
    cleak_tracked_object *entry = &registry[slot];
    // Published object last, as tracker entries are: a reader keeps an entry whose object did
    // not change while it read the rest.
    __atomic_store_n(&entry->object, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&entry->stack, stack, __ATOMIC_RELAXED);
    __atomic_store_n(&entry->generation, atomic_load_explicit(&currentGeneration, memory_order_relaxed), __ATOMIC_RELAXED);
    __atomic_store_n(&entry->size, ((const cleak_async_task_prefix *)made.task)->id, __ATOMIC_RELAXED);
    __atomic_store_n(&entry->object, (uintptr_t)made.task, __ATOMIC_RELEASE);
  }
}

__attribute__((swiftcall)) cleak_task_and_context_t swift_task_create(size_t flags, void *options, const void *resultType,
                                                                      void *entry, void *context) {
  cleak_task_create_t create = atomic_load_explicit(&realTaskCreate, memory_order_relaxed);
  if (__builtin_expect(create == NULL, 0)) create = resolveTaskCreate();
  cleak_task_and_context_t made = create(flags, options, resultType, entry, context);
  registerTask(made, (uintptr_t)__builtin_frame_address(0));
  return made;
}

/// How many slots of the registry `made` tasks have taken.
static size_t registrySlotsTaken(uint64_t made) {
  return made < CLEAK_TASK_REGISTRY_CAPACITY ? (size_t)made : CLEAK_TASK_REGISTRY_CAPACITY;
}

size_t cleak_task_registry_count(void) {
  return registrySlotsTaken(atomic_load_explicit(&taskRegistryNext, memory_order_relaxed));
}

size_t cleak_task_registry_copy(cleak_tracked_object *buffer, size_t capacity) {
  cleak_tracked_object *registry = atomic_load_explicit(&taskRegistry, memory_order_acquire);
  size_t copied = 0;
  // Oldest first: once the ring has gone round, the slot the next task takes. Before, only the
  // slots tasks took so far (the others were never written).
  uint64_t made = atomic_load_explicit(&taskRegistryNext, memory_order_relaxed);
  size_t oldest = made > CLEAK_TASK_REGISTRY_CAPACITY ? (size_t)(made % CLEAK_TASK_REGISTRY_CAPACITY) : 0;
  for (size_t step = 0; registry != NULL && step < registrySlotsTaken(made) && copied < capacity; step++) {
    size_t slot = (oldest + step) % CLEAK_TASK_REGISTRY_CAPACITY;
    uintptr_t task = __atomic_load_n(&registry[slot].object, __ATOMIC_ACQUIRE);
    if (task == 0) continue;
    cleak_tracked_object entry = {task, 0, __atomic_load_n(&registry[slot].generation, __ATOMIC_RELAXED),
                                  __atomic_load_n(&registry[slot].stack, __ATOMIC_RELAXED),
                                  __atomic_load_n(&registry[slot].size, __ATOMIC_RELAXED), 0};
    if (__atomic_load_n(&registry[slot].object, __ATOMIC_ACQUIRE) != task) continue;
    buffer[copied++] = entry;
  }
  return copied;
}

// MARK: - A runtime linked into the executable

// A program built with `-static-stdlib` calls its own copy of the runtime, whose entry points no
// interposer reaches: ExecutableRuntime.c patches their first instructions with jumps to these
// hooks, which pass each call on through the trampolines it stores in `cleak_executable_runtime`.

cleak_executable_runtime_entries cleak_executable_runtime = {0};

void cleak_tracker_use_executable_runtime(void) {
  atomic_store(&executableStandardLibrary, cleak_executable_runtime.standardLibraryModule);
  atomic_store(&interposedCalls, 1);
}

__attribute__((noinline)) static void *executableAllocateSlowly(const void *metadata, size_t size, size_t alignMask) {
  return allocateRecorded(cleak_executable_runtime.allocate, metadata, size, alignMask, (uintptr_t)__builtin_frame_address(0));
}

void *cleak_executable_allocate_object(const void *metadata, size_t size, size_t alignMask) {
  if (cleak_allocation_is_unrecorded(&cleak_tracker_fast_path.gate, &bytesUntilSample, size)) {
    __attribute__((musttail)) return cleak_executable_runtime.allocate(metadata, size, alignMask);
  }
  __attribute__((musttail)) return executableAllocateSlowly(metadata, size, alignMask);
}

void cleak_executable_deallocate_class_instance(void *object, size_t allocatedSize, size_t allocatedAlignMask) {
  if (__builtin_expect(cleak_deallocation_is_watched(&cleak_tracker_fast_path.gate, object, allocatedSize), 0)) forgetDeallocated(object, allocatedSize);
  __attribute__((musttail)) return cleak_executable_runtime.deallocateObject(object, allocatedSize, allocatedAlignMask);
}

void cleak_executable_deallocate_partial_class_instance(void *object, const void *metadata, size_t size, size_t alignMask) {
  forgetDeallocated(object, size);
  cleak_executable_runtime.deallocatePartial(object, metadata, size, alignMask);
}

__attribute__((swiftcall)) cleak_task_and_context_t cleak_executable_task_create(size_t flags, void *options, const void *resultType,
                                                                                 void *entry, void *context) {
  cleak_task_and_context_t made = cleak_executable_runtime.createTask(flags, options, resultType, entry, context);
  registerTask(made, (uintptr_t)__builtin_frame_address(0));
  return made;
}
