// One tracked object as the tracker keeps it: written by the allocating thread, published by
// storing `object` last, and forgotten by storing 0 there. Every field is atomic (relaxed
// accesses are plain moves) because a query may read an entry while its owner reuses it; the
// query keeps what it read only if `object` did not change meanwhile.
#pragma once

#include <stdatomic.h>
#include <stdint.h>

typedef struct {
  _Atomic uintptr_t object;  // 0: free
  _Atomic uintptr_t metadata;
  _Atomic uint32_t generation;
  _Atomic uint32_t stack;  // 0: none, else a stack id
  _Atomic uint64_t size;
} tracked_entry_t;
