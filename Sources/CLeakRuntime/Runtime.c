#include "CLeakRuntime.h"

#include <stdlib.h>

#include "ReadableMemory.h"
#include "SwiftRuntime.h"

// The runtime decodes an object's reference count word itself, following it to a side table when
// the word says there is one. In a capture child the walk can start from a task the program freed
// after the task registry listed it, whose word is then the allocator's bookkeeping: the two
// questions below are asked under the child's fault guard, and a fault answers as a dying object.

typedef struct {
  uintptr_t object;
  bool isDeallocating;
  size_t strongCount;
} reference_count_t;

static void readIsDeallocating(void *argument) {
  reference_count_t *count = argument;
  count->isDeallocating = swift_isDeallocating((void *)count->object);
}

static void readStrongCount(void *argument) {
  reference_count_t *count = argument;
  count->strongCount = swift_retainCount((void *)count->object);
}

bool cleak_is_deallocating(uintptr_t object) {
  reference_count_t count = {object, true, 0};
  return cleak_run_guarded(readIsDeallocating, &count) ? count.isDeallocating : true;
}

size_t cleak_strong_retain_count(uintptr_t object) {
  reference_count_t count = {object, true, 0};
  return cleak_run_guarded(readStrongCount, &count) ? count.strongCount : 0;
}

uintptr_t cleak_weak_load(uintptr_t slot) {
  void *object = swift_weakLoadStrong((void *)slot);
  if (object == NULL) return 0;
  swift_release(object);
  return (uintptr_t)object;
}

char *cleak_demangle(const char *mangled, size_t length) {
  return swift_demangle(mangled, length, NULL, NULL, 0);
}
