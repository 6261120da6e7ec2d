#ifndef CLEAK_INTERPOSER_FAST_PATH_H
#define CLEAK_INTERPOSER_FAST_PATH_H

// Whether an allocation or a deallocation can go straight to the Swift runtime, decided in one
// place for the two libraries that interpose the entry points: the tracker
// (`CLeakRuntime/AllocationTracking.c`), for the calls that reach it, and the loader of
// `leak-detector run` (`CLeakPreload/Preload.c`), which, once the agent is loaded, reads the
// agent's tracker state through the agent's `cleak_interposer_fast_path` and sends a call the
// tracker would pass on straight to the runtime, and any other to the tracker's slow path: one
// indirect jump (the loader's into the agent) fewer on every call of a program under `run`.
//
// Also here, because the deallocation's decision reads it: where an object's trailer lies and
// what it holds (`CLeakRuntime/EntryBlocks.h` keeps the entries it points to).

#include "SwiftAllocationABI.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: - The trailer

/// The tag a trailer carries for `object`: unlikely to be found there by chance (and a chance
/// match is caught by the entry check).
static inline uint32_t cleak_trailer_tag(uintptr_t object) {
  return (uint32_t)(object >> 4) ^ 0x5A17C0DEu;
}

/// Where the trailer of an object of `size` bytes starts: right after the instance, 8-byte aligned.
static inline size_t cleak_trailer_offset(size_t size) {
  return (size + 7) & ~(size_t)7;
}

static inline uint32_t *cleak_trailer(uintptr_t object, size_t size) {
  return (uint32_t *)(object + cleak_trailer_offset(size));
}

/// How many bytes an object of `size` bytes with its trailer needs.
static inline size_t cleak_trailer_end(size_t size) {
  return cleak_trailer_offset(size) + 8;
}

/// The 8 bytes of the trailer at `trailer`, tag first, read in one load. For an object without a
/// trailer they lie past its instance: a read the sanitizers are not to check, made in assembly,
/// which they do not instrument (a `no_sanitize` function would do too, but the compiler never
/// inlines one into a function without the attribute, and this read is on every deallocation).
static inline uint64_t cleak_trailer_read(const uint32_t *trailer) {
  uint64_t word;
#if defined(__x86_64__)
  __asm__("movq %1, %0" : "=r"(word) : "m"(*(const uint64_t *)trailer));
#elif defined(__aarch64__)
  __asm__("ldr %0, %1" : "=r"(word) : "m"(*(const uint64_t *)trailer));
#else
#error "a trailer read for this architecture"
#endif
  return word;
}

// MARK: - The gate

/// The tracker's state that every allocation and deallocation reads, together in one cache line
/// that only changes when tracking starts or stops (or an object without a trailer is tracked).
typedef struct {
  /// Whether allocations are recorded.
  atomic_bool recording;
  /// Whether objects may be tracked: when not, deallocations skip the lookups entirely.
  atomic_bool tableInUse;
  /// Whether the 8 bytes after any instance may be read without asking the allocator (with
  /// glibc's `malloc` they lie in the object's block or the next block's header).
  atomic_bool trailersReadable;
  /// The mean number of bytes between sampled allocations; 0: every allocation is recorded.
  _Atomic uint64_t sampleBytes;
  /// Address bits no tracked object's address has set: in sampled mode, every tracked object is
  /// allocated at a multiple of the sampled alignment, so a deallocated object with any of these
  /// bits set was not sampled. 0 when any object may be tracked (full tracking, an object
  /// tracked explicitly).
  _Atomic uintptr_t untrackedAddressBits;
  /// The classes of the objects the address table (objects without a trailer) may hold, a bit
  /// per class; 0 when it holds none.
  _Atomic uint64_t addressTableClasses;
  /// Called with every deallocated object when set (`cleak_set_deallocation_observer`).
  _Atomic(void (*)(uintptr_t object)) observer;
} __attribute__((aligned(64))) cleak_allocation_gate;

/// Whether an allocation of `size` bytes goes straight to the runtime: recording is off, or
/// sampled mode's countdown (this thread's bytes until its next sample, `bytesUntilSample`) has
/// not reached it, the countdown then taken. The whole cost of an unsampled allocation: a few
/// loads, one thread-local subtraction and a branch.
/// (No branch is marked likely: with recording off the first one is taken, in sampled mode the
/// last; either way this stays inline, in the interposer, with no frame.)
__attribute__((always_inline)) static inline bool cleak_allocation_is_unrecorded(const cleak_allocation_gate *gate,
                                                                                 int64_t *bytesUntilSample, size_t size) {
  if (!atomic_load_explicit(&gate->recording, memory_order_relaxed)) return true;
  uint64_t mean = atomic_load_explicit(&gate->sampleBytes, memory_order_relaxed);
  int64_t left = *bytesUntilSample - (int64_t)size;
  if (mean == 0 || left <= 0) return false;
  *bytesUntilSample = left;
  return true;
}

/// Whether a deallocation has anything to do besides freeing: an object to look for, or an
/// observer. In sampled mode, whether the object is at a sampled address and carries a tag (or
/// the address table is in use) is one branch, not two: the address alone is a coin toss (one
/// unsampled object in four lies at a multiple of 64) that the branch predictor loses, which cost
/// 1.5–2 ns per deallocation; the trailer read is in or next to the block being freed.
__attribute__((always_inline)) static inline bool cleak_deallocation_is_watched(const cleak_allocation_gate *gate, void *object,
                                                                                size_t size) {
  uintptr_t address = (uintptr_t)object;
  bool observed = atomic_load_explicit(&gate->observer, memory_order_relaxed) != NULL;
  if (!atomic_load_explicit(&gate->tableInUse, memory_order_relaxed)) return observed;  // not marked likely: sampled mode's path stays inline
  uintptr_t untracked = atomic_load_explicit(&gate->untrackedAddressBits, memory_order_relaxed);
  if (untracked == 0 || !atomic_load_explicit(&gate->trailersReadable, memory_order_relaxed)) return true;  // the tracker decides
  uint64_t trailer = cleak_trailer_read(cleak_trailer(address, size));
  bool sampledAddress = (address & untracked) == 0;
  bool mayBeTracked =
      ((uint32_t)trailer == cleak_trailer_tag(address)) | (atomic_load_explicit(&gate->addressTableClasses, memory_order_relaxed) != 0);
  return observed | (sampledAddress & mayBeTracked);
}

// MARK: - The agent's fast path, for the loader

/// What the loader needs to decide a call as the tracker would and send it on without entering
/// the agent: the tracker's gate, where each thread's sampling countdown lies, and where each
/// call goes. Filled by the agent (`cleak_interposer_fast_path_for_loader`) before the loader
/// reads it, and constant afterwards except for the gate.
typedef struct {
  cleak_allocation_gate gate;
  /// The offset from the thread pointer of the tracker's thread-local countdown (an
  /// initial-exec variable, in the static TLS block, at the same offset in every thread).
  ptrdiff_t bytesUntilSampleOffset;
  /// The runtime's `swift_allocObject`.
  cleak_allocate_object_t allocate;
  /// The tracker's allocation slow path (records, samples, or passes on): reached by a tail
  /// call, so that its frame is the first above the allocating code's.
  cleak_allocate_object_t allocateRecorded;
  /// The runtime's `swift_deallocObject` (what `swift_deallocClassInstance` does on Linux).
  cleak_deallocate_class_instance_t deallocateObject;
  /// The tracker's deallocation that forgets the object, tells the observer, then frees it.
  cleak_deallocate_class_instance_t deallocateWatched;
} cleak_interposer_fast_path;

/// The tracker's fast path with every field filled (NULL when the runtime's `swift_allocObject`
/// cannot be found): defined by the tracker, looked up in the agent by the loader with `dlsym`
/// under the name `CLEAK_INTERPOSER_FAST_PATH_FUNCTION`.
const cleak_interposer_fast_path *cleak_interposer_fast_path_for_loader(void);
#define CLEAK_INTERPOSER_FAST_PATH_FUNCTION "cleak_interposer_fast_path_for_loader"
typedef const cleak_interposer_fast_path *(*cleak_interposer_fast_path_function_t)(void);
_Static_assert(__builtin_types_compatible_p(__typeof__(&cleak_interposer_fast_path_for_loader), cleak_interposer_fast_path_function_t),
               "cleak_interposer_fast_path_function_t must be cleak_interposer_fast_path_for_loader's type");

/// This thread's sampling countdown, as `fastPath` places it.
static inline int64_t *cleak_interposer_bytes_until_sample(const cleak_interposer_fast_path *fastPath) {
  return (int64_t *)((char *)__builtin_thread_pointer() + fastPath->bytesUntilSampleOffset);
}

#ifdef __cplusplus
}
#endif

#endif
