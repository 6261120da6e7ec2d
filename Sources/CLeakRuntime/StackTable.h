// Allocation stacks: walked along the frame-pointer chain, deduplicated into ids from 1.
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define CLEAK_MAX_STACK_DEPTH 64
/// The most distinct stacks the table holds; ids run from 1 to this.
#define CLEAK_MAX_STACKS (1 << 20)

/// Finds the concurrency runtime's code, where the calls that resume tasks are, so that walks
/// recognize the frames those calls run. Until then (or when the process has no concurrency
/// runtime), walks go on from an async function into the runtime's frames that resumed it.
void cleak_stack_learn_concurrency_runtime(void);

/// Whether `address` lies in this thread's stack (where the optimizer puts objects that do not
/// escape; they are destroyed, never freed, by the thread that made them).
bool cleak_stack_contains(uintptr_t address);

/// The id of a stack, adding it when new: a thread-local cache answers repeated stacks without a
/// lock. Returns 0 when the table is full or out of memory.
uint32_t cleak_stack_intern(const uintptr_t *frames, int depth);

void cleak_stack_table_lock(void);
void cleak_stack_table_unlock(void);
