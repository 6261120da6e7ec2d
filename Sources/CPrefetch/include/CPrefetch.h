#ifndef CPREFETCH_H
#define CPREFETCH_H

// The processor's prefetch instruction: a graph walk asks for the cache lines of the nodes it
// will read a few steps later, so that their misses overlap instead of coming one after another
// (on a heap of ten million objects nearly every such read misses every cache). Any address may
// be passed, even one outside the program's memory: a prefetch never faults.

/// Brings the line holding `address` in, to be read.
static inline __attribute__((always_inline)) void cprefetch_for_reading(const void *address) {
  __builtin_prefetch(address, 0, 3);
}

/// Brings the line holding `address` in, to be written.
static inline __attribute__((always_inline)) void cprefetch_for_writing(const void *address) {
  __builtin_prefetch(address, 1, 3);
}

#endif
