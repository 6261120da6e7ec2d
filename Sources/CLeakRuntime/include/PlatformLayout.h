// The platform's layouts this library reads, beside the Swift runtime's: a stack frame's record
// as frame-pointer walks read it, the red zone below a thread's stack pointer, and the size of
// glibc's thread descriptor.
//
// Read from the System V ABI for x86-64 and the Procedure Call Standard for AArch64 (frame
// records, red zone), and from glibc 2.36 (`nptl/descr.h`, `struct pthread`, as Debian 12 builds
// it) for the thread descriptor.
#ifndef CLEAK_PLATFORM_LAYOUT_H
#define CLEAK_PLATFORM_LAYOUT_H

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

/// The size of glibc's `struct pthread`, the thread descriptor at the thread pointer (with its
/// first block of `pthread_setspecific` values); static TLS lies below it on x86-64 and above
/// it on AArch64.
static const uintptr_t cleak_glibc_thread_descriptor_size = 2304;

#endif
