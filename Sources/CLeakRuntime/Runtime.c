#include "CLeakRuntime.h"

#include <stdlib.h>
#include <string.h>

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

// In a memory image no runtime can be asked: the count word is decoded as the runtime's inline
// and side-table reference counts lay it out on 64-bit platforms (the bits below).
enum {
  isDeinitingBit = 32,
  strongExtraShift = 33,
  useSlowReferenceCountBit = 63,
  sideTableMarkBit = 62,
  sideTableUnusedLowBits = 3,
  /// Where a side-table entry keeps its reference count word, after the object's address.
  sideTableCountOffset = 16,
};
static const uint64_t strongExtraMask = ((uint64_t)1 << 30) - 1;
static const uint64_t immortalMask = 0xffffffffu;

/// The count word of `object` in the memory image as its side table holds it when it has one:
/// `false` when it cannot be read.
static bool imageCountBits(uintptr_t object, uint64_t *bits) {
  const unsigned char *inline_ = cleak_memory_image_bytes(object + sizeof(uintptr_t), sizeof(uint64_t));
  if (inline_ == NULL) return false;
  memcpy(bits, inline_, sizeof *bits);
  bool slow = (*bits >> useSlowReferenceCountBit) & 1;
  if (!slow || (*bits & immortalMask) == immortalMask) return true;
  uintptr_t side = (uintptr_t)((*bits & (((uint64_t)1 << sideTableMarkBit) - 1)) << sideTableUnusedLowBits);
  // The entry points back at its object: a word that only looks like a side-table pointer does not.
  if (cleak_memory_image_word(side) != object) return false;
  const unsigned char *count = cleak_memory_image_bytes(side + sideTableCountOffset, sizeof(uint64_t));
  if (count == NULL) return false;
  memcpy(bits, count, sizeof *bits);
  return true;
}

bool cleak_image_reference_count(uintptr_t object, size_t *strongCount, bool *isDeiniting) {
  uint64_t bits;
  if (!imageCountBits(object, &bits)) return false;
  if ((bits & immortalMask) == immortalMask && ((bits >> useSlowReferenceCountBit) & 1)) {
    *strongCount = SIZE_MAX / 2;  // immortal: no count to compare
    *isDeiniting = false;
    return true;
  }
  *isDeiniting = (bits >> isDeinitingBit) & 1;
  *strongCount = (size_t)((bits >> strongExtraShift) & strongExtraMask) + 1;
  return true;
}

bool cleak_is_deallocating(uintptr_t object) {
  if (__builtin_expect(cleak_memory_image_active, 0)) {
    size_t strong;
    bool deiniting;
    return !cleak_image_reference_count(object, &strong, &deiniting) || deiniting;
  }
  reference_count_t count = {object, true, 0};
  return cleak_run_guarded(readIsDeallocating, &count) ? count.isDeallocating : true;
}

size_t cleak_strong_retain_count(uintptr_t object) {
  if (__builtin_expect(cleak_memory_image_active, 0)) {
    size_t strong;
    bool deiniting;
    return cleak_image_reference_count(object, &strong, &deiniting) ? strong : 0;
  }
  reference_count_t count = {object, true, 0};
  return cleak_run_guarded(readStrongCount, &count) ? count.strongCount : 0;
}

uintptr_t cleak_weak_load(uintptr_t slot) {
  if (__builtin_expect(cleak_memory_image_active, 0)) {
    // A native weak reference holds its object's side-table entry, which holds the object.
    uintptr_t side = cleak_memory_image_word(slot);
    if (side == 0) return 0;
    uintptr_t object = cleak_memory_image_word(side);
    size_t strong;
    bool deiniting;
    if (object == 0 || !cleak_image_reference_count(object, &strong, &deiniting) || deiniting) return 0;
    return object;
  }
  void *object = swift_weakLoadStrong((void *)slot);
  if (object == NULL) return 0;
  swift_release(object);
  return (uintptr_t)object;
}

char *cleak_demangle(const char *mangled, size_t length) {
  return swift_demangle(mangled, length, NULL, NULL, 0);
}
