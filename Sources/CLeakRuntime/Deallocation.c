#include "CLeakRuntime.h"

#include <stdatomic.h>

// The runtime's own deallocation of an object's memory (libswiftCore).
extern void swift_deallocObject(void *object, size_t allocatedSize, size_t allocatedAlignMask);

static _Atomic(cleak_deallocation_observer) observer = NULL;

void cleak_set_deallocation_observer(cleak_deallocation_observer newObserver) {
  atomic_store_explicit(&observer, newObserver, memory_order_release);
}

/// Interposes the runtime's `swift_deallocClassInstance`: the deallocating deinit of every Swift
/// class calls it through the PLT once `deinit` has run. It tells the observer, then frees the
/// memory with `swift_deallocObject`, which is all the runtime's version does on Linux besides a
/// debug check for objects retained during deinit.
void swift_deallocClassInstance(void *object, size_t allocatedSize, size_t allocatedAlignMask) {
  cleak_deallocation_observer current = atomic_load_explicit(&observer, memory_order_acquire);
  if (current != NULL) current((uintptr_t)object);
  swift_deallocObject(object, allocatedSize, allocatedAlignMask);
}
