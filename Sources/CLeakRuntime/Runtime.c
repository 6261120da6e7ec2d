#include "CLeakRuntime.h"

#include <stdlib.h>

#include "SwiftRuntime.h"

bool cleak_is_deallocating(uintptr_t object) {
  return swift_isDeallocating((void *)object);
}

size_t cleak_strong_retain_count(uintptr_t object) {
  return swift_retainCount((void *)object);
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
