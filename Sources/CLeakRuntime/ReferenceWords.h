// Words of memory read as references, for the conservative scans (RootScan.c, ReferenceCensus.c).
#pragma once

#include <stdint.h>

// A word counts as a reference when, with Swift's spare pointer bits cleared, it is an object's
// address: the bits that multi-payload enums and bridge objects keep their tags in (the top byte
// and the low three bits on x86-64) never hide a reference.
#if defined(__x86_64__)
static const uintptr_t cleak_spare_pointer_bits = 0xFF00000000000007ULL;
#elif defined(__aarch64__)
static const uintptr_t cleak_spare_pointer_bits = 0xF000000000000007ULL;
#else
static const uintptr_t cleak_spare_pointer_bits = 0x7;
#endif

/// The address a word of memory refers to, its spare bits cleared.
static inline uintptr_t cleak_reference_in_word(uintptr_t word) {
  return word & ~cleak_spare_pointer_bits;
}

// Scanned memory is read as it is, redzones and stale frames included: a conservative scan reads
// every word on purpose, so the sanitizers do not instrument these reads, and volatile keeps the
// loads as written.
#define CLEAK_UNINSTRUMENTED __attribute__((no_sanitize("address", "thread", "memory")))

CLEAK_UNINSTRUMENTED static inline uintptr_t cleak_word_at(uintptr_t address) {
  return *(volatile const uintptr_t *)address;
}
