// The platform's layouts this library reads, beside the Swift runtime's: a stack frame's record
// as frame-pointer walks read it, the red zone below a thread's stack pointer, the page size, the
// range of user-space addresses, and the size of glibc's thread descriptor.
//
// Read from the System V ABI for x86-64 and the Procedure Call Standard for AArch64 (frame
// records, red zone, page size, address range), and from glibc 2.36 (`nptl/descr.h`, `struct pthread`, as Debian 12 builds
// it) for the thread descriptor.
#ifndef CLEAK_PLATFORM_LAYOUT_H
#define CLEAK_PLATFORM_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// A frame record, where a frame pointer points: the caller's frame pointer, then the address
/// the frame returns to. A caller's record is higher on the stack than its callee's; 0 marks
/// the outermost frame.
typedef struct {
  uintptr_t caller;
  uintptr_t returnAddress;
} cleak_frame_record;

_Static_assert(sizeof(cleak_frame_record) == 2 * sizeof(uintptr_t), "frame record");

/// The bytes below the stack pointer that a leaf function may use without moving it (x86-64's
/// red zone; AArch64 has none).
#if defined(__x86_64__)
static const uintptr_t cleak_stack_red_zone = 128;
#else
static const uintptr_t cleak_stack_red_zone = 0;
#endif

/// The size of a page of memory as `mincore` and the mappings count it (x86-64's 4 KiB).
static const uintptr_t cleak_page_size = 4096;

/// No object, metadata or code lies below this address: Linux maps nothing under
/// `vm.mmap_min_addr` (64 KiB by default), so a smaller word is an integer, not a pointer.
static const uintptr_t cleak_lowest_mapped_address = 0x10000;

/// User-space addresses lie below 2^56 (x86-64 with five-level paging, AArch64); a word with
/// higher bits set is not a pointer to an object.
static const uintptr_t cleak_address_limit = (uintptr_t)1 << 56;

/// Whether `word` could be the address of an object, metadata or code: mapped addresses only,
/// aligned to `alignment` (a power of two). Never reads memory.
static inline bool cleak_is_plausible_address(uintptr_t word, uintptr_t alignment) {
  return (word & (alignment - 1)) == 0 && word >= cleak_lowest_mapped_address && word < cleak_address_limit;
}

/// The size of glibc's `struct pthread`, the thread descriptor at the thread pointer (with its
/// first block of `pthread_setspecific` values); static TLS lies below it on x86-64 and above
/// it on AArch64.
static const uintptr_t cleak_glibc_thread_descriptor_size = 2304;

#endif
