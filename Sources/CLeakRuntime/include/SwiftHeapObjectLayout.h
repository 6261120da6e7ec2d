// Swift heap objects as this library reads them: the object header, the inline reference-count
// word and its side-table form, and the spare bits of a pointer to an object.
//
// Read from the Swift 6.3.1 runtime (swift-6.3.1-RELEASE: `include/swift/Runtime/HeapObject.h`,
// `RefCount.h`, `stdlib/public/SwiftShims/swift/shims/System.h`) for Linux on 64-bit targets.
// `RuntimeLayoutCheck` checks the header and the side-table form against a fresh object of its
// own before the first capture or tracking start.
#ifndef CLEAK_SWIFT_HEAP_OBJECT_LAYOUT_H
#define CLEAK_SWIFT_HEAP_OBJECT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// `HeapObject`: every Swift object starts with its metadata and its reference counts; its
/// stored properties follow.
typedef struct {
  uintptr_t metadata;
  uint64_t refCounts;  // inline counts, or the side table's address (cleak_side_table_of)
} cleak_heap_object;

_Static_assert(sizeof(cleak_heap_object) == 16, "6.3.1 heap object header");

/// `HeapObjectSideTableEntry`, its first word: the object it belongs to.
typedef struct {
  uintptr_t object;
} cleak_side_table_entry;

/// The reference-count bits `UseSlowRC` and `SideTableMark` (bits 63 and 62): both set, the
/// word's other bits are the side table's address shifted right by 3.
static const uint64_t cleak_refcount_side_table_bits = (uint64_t)3 << 62;
static const unsigned cleak_refcount_side_table_shift = 3;

/// The address of `object`'s side table, from its inline reference-count word, or 0 when it has
/// none (immortal objects also have `UseSlowRC`, without `SideTableMark`). Only compared with
/// addresses, never followed, by the census; volatile, because other threads change the word.
static inline uintptr_t cleak_side_table_of(uintptr_t object) {
  uint64_t bits = *(const volatile uint64_t *)&((const cleak_heap_object *)object)->refCounts;
  if ((bits & cleak_refcount_side_table_bits) != cleak_refcount_side_table_bits) return 0;
  return (uintptr_t)((bits & ~cleak_refcount_side_table_bits) << cleak_refcount_side_table_shift);
}

/// The reference-count bits of an immortal object (`Immortal` in `RefCount.h`): `UseSlowRC` and
/// every bit of the low 32, without `SideTableMark`. Static objects are immortal: the empty
/// collection singletons, statically initialized literals (`swift_initStaticObject`).
static const uint64_t cleak_refcount_immortal_bits = ((uint64_t)1 << 63) | 0xFFFFFFFFULL;

/// Whether an object whose reference-count word is `bits` is immortal: a static object, not a
/// block of the heap. Only the flag bits are read, never a count.
static inline bool cleak_refcount_is_immortal(uint64_t bits) {
  return (bits & (cleak_refcount_immortal_bits | ((uint64_t)1 << 62))) == cleak_refcount_immortal_bits;
}

// A word counts as a reference when, with Swift's spare pointer bits cleared, it is an object's
// address: the bits that multi-payload enums and bridge objects keep their tags in (the top byte
// and the low three bits on x86-64) never hide a reference. These are the heap-object spare bits
// of `SwiftShims/System.h`, per architecture, the one mask of this library.
#if defined(__x86_64__)
static const uintptr_t cleak_spare_pointer_bits = 0xFF00000000000007ULL;
#elif defined(__aarch64__)
static const uintptr_t cleak_spare_pointer_bits = 0xF000000000000007ULL;
#else
static const uintptr_t cleak_spare_pointer_bits = 0x7;
#endif

/// The address a word of memory refers to, its spare bits cleared: a reference held in an enum
/// payload, a bridge object or any word read as a possible reference.
static inline uintptr_t cleak_reference_in_word(uintptr_t word) {
  return word & ~cleak_spare_pointer_bits;
}

#endif
