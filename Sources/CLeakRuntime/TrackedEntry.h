// One tracked object as the tracker keeps it: written by the allocating thread, published by
// storing `object` last, and forgotten by storing 0 there.
#pragma once

#include <stdatomic.h>
#include <stdint.h>

typedef struct {
  _Atomic uintptr_t object;  // 0: free
  uintptr_t metadata;
  uint32_t generation;
  uint32_t stack;  // 0: none, else a stack id
  uint64_t size;
} tracked_entry_t;
