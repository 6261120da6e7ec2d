// The platform's layouts this library reads, beside the Swift runtime's: a stack frame's record
// as frame-pointer walks read it, the red zone below a thread's stack pointer, the page size, the
// range of user-space addresses, and the size of glibc's thread descriptor.
//
// Read from the System V ABI for x86-64 and the Procedure Call Standard for AArch64 (frame
// records, red zone, page size, address range), and from glibc 2.36 (`nptl/descr.h`, `struct
// pthread`, and `sysdeps/x86_64/nptl/tls.h`, `tcbhead_t`, as Debian 12 builds them) for the
// thread descriptor and where it keeps `pthread_setspecific` values.
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

/// Whether the offsets below describe this platform's glibc thread descriptor: read from glibc
/// 2.36 for x86-64 only. Even there they are checked at load (`cleak_thread_specific_layout_holds`).
#if defined(__x86_64__)
static const bool cleak_glibc_thread_specific_layout_known = true;
#else
static const bool cleak_glibc_thread_specific_layout_known = false;
#endif

/// Where a thread descriptor points to itself: the `tcb` and `self` words of its `tcbhead_t`
/// both hold its address, which is how a descriptor is recognized at the top of a thread's stack.
static const uintptr_t cleak_glibc_descriptor_tcb_offset = 0;
static const uintptr_t cleak_glibc_descriptor_self_offset = 16;
/// Where a thread descriptor keeps its dynamic thread vector (`tcbhead_t.dtv`): entries of
/// `cleak_glibc_dtv_entry`, the one before the first holding the vector's length, the first a
/// generation, entry m the TLS block of the image whose TLS module id is m.
static const uintptr_t cleak_glibc_descriptor_dtv_offset = 8;
/// Where a thread descriptor keeps its thread's kernel id (`pid_t tid`).
static const uintptr_t cleak_glibc_descriptor_tid_offset = 0x2d0;
/// Where a thread descriptor keeps the values of keys 0 to 31 (`specific_1stblock`, 32 key data
/// records).
static const uintptr_t cleak_glibc_descriptor_first_key_block_offset = 0x310;
/// Where a thread descriptor keeps the addresses of its key blocks (`specific`, 32 pointers):
/// the first points to `specific_1stblock`, the others, when not null, to blocks from malloc for
/// keys 32 × n to 32 × n + 31.
static const uintptr_t cleak_glibc_descriptor_key_blocks_offset = 0x510;
/// The keys of one block, and the blocks of a thread (`PTHREAD_KEY_2NDLEVEL_SIZE`,
/// `PTHREAD_KEY_1STLEVEL_SIZE`).
enum { cleak_glibc_keys_per_block = 32, cleak_glibc_key_blocks = 32 };

/// A key's record in a block (`struct pthread_key_data`): the key's generation when the value
/// was set, and the value.
typedef struct {
  uintptr_t sequence;
  uintptr_t value;
} cleak_glibc_key_data;

_Static_assert(sizeof(cleak_glibc_key_data) == 2 * sizeof(uintptr_t), "key data");

/// An entry of a dynamic thread vector (`dtv_t`): the image's TLS block for the thread
/// (`UINTPTR_MAX` while not allocated yet), and the allocation to free, null for a block of
/// static TLS.
typedef struct {
  uintptr_t block;
  uintptr_t allocation;
} cleak_glibc_dtv_entry;

_Static_assert(sizeof(cleak_glibc_dtv_entry) == 2 * sizeof(uintptr_t), "dtv entry");

#endif
