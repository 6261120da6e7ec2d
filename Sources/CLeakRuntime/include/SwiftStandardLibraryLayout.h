// Values of the Swift standard library and ABI as this library reads them in place, without
// copying (a copy would retain): contiguous array storage, `String`'s two words and its native
// storage, thick functions and existential containers, and how large each storage's allocation
// is. (`Dictionary` and `Set` storage are read through their reflected field offsets instead.)
//
// Read from the Swift 6.3.1 standard library (swift-6.3.1-RELEASE: `stdlib/public/core/
// ContiguousArrayBuffer.swift`, `ArrayBody.swift`, `StringObject.swift`, `StringStorage.swift`;
// `docs/ABI/TypeLayout.rst`) for 64-bit targets. `RuntimeLayoutCheck` checks the array and
// string layouts against values of its own before the first capture or tracking start.
#ifndef CLEAK_SWIFT_STANDARD_LIBRARY_LAYOUT_H
#define CLEAK_SWIFT_STANDARD_LIBRARY_LAYOUT_H

#include <malloc.h>
#include <stddef.h>
#include <stdint.h>

#include "SwiftHeapObjectLayout.h"

/// `_ContiguousArrayStorage<Element>`: the header, then the elements at the end of this struct.
typedef struct {
  cleak_heap_object header;
  intptr_t count;  // `_ArrayBody`
  uintptr_t capacityAndFlags;
} cleak_array_storage;

_Static_assert(sizeof(cleak_array_storage) == 32, "6.3.1 array storage: elements 32 bytes in");

/// Where an array storage's capacity is in `capacityAndFlags`: `capacityAndFlags >> shift` (the
/// low bit is "elements are of a verbatim-bridged type"). The capacity is what the allocation
/// has room for (the stdlib asks malloc's usable size), so the storage's allocation is its
/// instance size plus capacity × the element's stride.
static const unsigned cleak_array_capacity_shift = 1;

/// `String` (`_StringGuts`' `_StringObject`): two words. A small string keeps its bytes in both
/// words, its count in the top byte's low nibble; a large one its count in the first word and
/// its storage's address in the second.
typedef struct {
  uint64_t countAndFlags;
  uint64_t object;
} cleak_string;

/// The `object` bit of a small (inline) string.
static const uint64_t cleak_string_small_flag = (uint64_t)1 << 61;
/// Where a small string's count is in `object`: `(object >> shift) & mask`.
static const unsigned cleak_string_small_count_shift = 56;
static const uint64_t cleak_string_small_count_mask = 0xF;
/// The `countAndFlags` bit of a string whose bytes are tail-allocated in its storage object
/// (native and literal strings).
static const uint64_t cleak_string_tail_allocated_flag = (uint64_t)1 << 60;
/// The bits of `countAndFlags` that hold a large string's count in bytes.
static const uint64_t cleak_string_count_mask = 0x0000FFFFFFFFFFFFULL;
/// The bits of `object` that hold a large string's storage address.
static const uint64_t cleak_string_object_address_mask = 0x0FFFFFFFFFFFFFFFULL;
/// The discriminator bits of a large string's `object` (immortal, bridged, small, foreign): all
/// clear for a string whose storage is a mortal `__StringStorage` or `__SharedStringStorage`.
static const uint64_t cleak_string_object_discriminator_mask = 0xF000000000000000ULL;
/// The `countAndFlags` bit of a string whose storage is a native `__StringStorage` (with
/// `cleak_string_tail_allocated_flag`; a `__SharedStringStorage` has neither).
static const uint64_t cleak_string_natively_stored_flag = (uint64_t)1 << 61;

/// `__StringStorage`: the header, then the string's UTF-8 bytes at the end of this struct.
typedef struct {
  cleak_heap_object header;
  uint64_t capacityAndFlags;
  uint64_t countAndFlags;
} cleak_string_storage;

_Static_assert(sizeof(cleak_string_storage) == 32, "6.3.1 string storage: bytes 32 bytes in");

/// The bits of a `__StringStorage`'s `capacityAndFlags` that hold its real capacity (the bytes
/// allocated for code units, the terminating NUL included).
static const uint64_t cleak_string_storage_capacity_mask = 0x0000FFFFFFFFFFFFULL;
/// The `capacityAndFlags` bit of a storage that has a breadcrumbs pointer: one more word,
/// allocated after the code units (aligned to a word).
static const uint64_t cleak_string_storage_breadcrumbs_flag = (uint64_t)1 << 63;

/// The usable size of the malloc block at `block`, a Swift object of the heap (every one is a
/// malloc block; a static object is not): what the standard library asks when it sets a
/// storage's capacity. Only the start-up check compares it with the sizes the layouts give.
static inline size_t cleak_malloc_block_size(uintptr_t block) {
  return malloc_usable_size((void *)block);
}

/// A thick function value (a closure): its code, then its context object (0 for none).
typedef struct {
  uintptr_t function;
  uintptr_t context;
} cleak_thick_function;

/// An opaque existential container (`Any`, `any P`): a three-word value buffer, then the type's
/// metadata (0 in an `Any` never assigned), then the witness tables.
typedef struct {
  uintptr_t buffer[3];
  uintptr_t type;
} cleak_opaque_existential;

_Static_assert(offsetof(cleak_thick_function, context) == 8, "a thick function's context follows its code");
_Static_assert(offsetof(cleak_opaque_existential, type) == 24, "the type follows a three-word buffer");

#endif
