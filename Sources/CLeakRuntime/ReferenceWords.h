// Words of memory read as references, for the conservative scans (RootScan.c, ReferenceCensus.c).
#pragma once

#include <stdint.h>

#include "CLeakRuntime.h"

// Which words count as references: `cleak_reference_in_word` (SwiftHeapObjectLayout.h).
#include "SwiftHeapObjectLayout.h"

// Scanned memory is read as it is, redzones and stale frames included: a conservative scan reads
// every word on purpose, so the sanitizers do not instrument these reads, and volatile keeps the
// loads as written.
#define CLEAK_UNINSTRUMENTED __attribute__((no_sanitize("address", "thread", "memory")))

CLEAK_UNINSTRUMENTED static inline uintptr_t cleak_word_at(uintptr_t address) {
  if (__builtin_expect(cleak_memory_image_active, 0)) return cleak_memory_image_word(address);
  return *(volatile const uintptr_t *)address;
}
