#define _GNU_SOURCE
#include "CLeakRuntime.h"

#include <dlfcn.h>
#include <stdatomic.h>

// Symbol interposition of the runtime's allocation entry points (RUNTIME-NOTES Q1): this
// executable's definitions win over libswiftCore's for every call through the PLT (user code,
// Foundation, Dispatch, Concurrency). The real functions are resolved on first call, not in a
// constructor: libFoundation allocates Swift objects before constructors of the executable run.
// The runtime's `_swift_allocObject` pointer hooks are never used: on Swift 6.3 they crash code
// that uses Foundation.

extern void swift_deallocObject(void *object, size_t allocatedSize, size_t allocatedAlignMask);

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
  cleak_tracker_allocated((uintptr_t)object, (uintptr_t)metadata, size);
  return object;
}

/// The deallocating deinit of every Swift class calls this through the PLT once `deinit` ran. It
/// removes the object from the tracker, tells the observer, then frees the memory with
/// `swift_deallocObject`, which is all the runtime's version does on Linux besides a debug check
/// for objects retained during deinit.
void swift_deallocClassInstance(void *object, size_t allocatedSize, size_t allocatedAlignMask) {
  cleak_tracker_deallocated((uintptr_t)object);
  cleak_deallocation_observer current = atomic_load_explicit(&observer, memory_order_acquire);
  if (current != NULL) current((uintptr_t)object);
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
