// The tracker's locks: test-and-set spinlocks, because the allocation hooks must not call into
// anything that could allocate or re-enter, and their critical sections are a few dozen
// instructions.
#pragma once

#include <stdatomic.h>

static inline void cleak_spin_lock(atomic_flag *lock) {
  while (atomic_flag_test_and_set_explicit(lock, memory_order_acquire)) __builtin_ia32_pause();
}

static inline void cleak_spin_unlock(atomic_flag *lock) {
  atomic_flag_clear_explicit(lock, memory_order_release);
}
