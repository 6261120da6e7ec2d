#ifndef CLEAK_RUNTIME_H
#define CLEAK_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

/// Copies `length` bytes at `address` in this process into `destination` without faulting:
/// an unmapped or unreadable source gives a short count instead of a crash.
/// The corresponding system call is `process_vm_readv` on the calling process.
///
/// Returns the number of bytes copied, or -1 with errno set.
ptrdiff_t cleak_read_memory(void *destination, uintptr_t address, size_t length);

#endif
