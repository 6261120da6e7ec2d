#define _GNU_SOURCE
#include "CLeakRuntime.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <unistd.h>

// Conservative scanning of root memory (global data, thread stacks, thread-local storage) for
// references to captured objects. A word counts when, with Swift's spare pointer bits cleared,
// it is the address of one of the objects: the bits that multi-payload enums and bridge objects
// keep their tags in (the top byte and the low three bits on x86-64) never hide a reference.

#if defined(__x86_64__)
static const uintptr_t spareBits = 0xFF00000000000007ULL;
#elif defined(__aarch64__)
static const uintptr_t spareBits = 0xF000000000000007ULL;
#else
static const uintptr_t spareBits = 0x7;
#endif

uintptr_t cleak_decode_reference_word(uintptr_t word) {
  return word & ~spareBits;
}

typedef struct {
  cleak_memory_range *ranges;
  size_t capacity;
  size_t count;
  uintptr_t excluded;  // an address inside the image to leave out
} segment_search_t;

static int collectSegments(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  segment_search_t *search = data;
  int excluded = 0;
  for (int index = 0; index < info->dlpi_phnum; index++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[index];
    uintptr_t start = info->dlpi_addr + header->p_vaddr;
    if (header->p_type == PT_LOAD && search->excluded >= start && search->excluded < start + header->p_memsz) excluded = 1;
  }
  if (excluded) return 0;
  for (int index = 0; index < info->dlpi_phnum; index++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[index];
    if (header->p_type != PT_LOAD || !(header->p_flags & PF_W)) continue;
    if (search->count < search->capacity) {
      uintptr_t start = info->dlpi_addr + header->p_vaddr;
      search->ranges[search->count].start = start;
      search->ranges[search->count].end = start + header->p_memsz;
    }
    search->count += 1;
  }
  return 0;
}

size_t cleak_writable_image_segments(cleak_memory_range *ranges, size_t capacity) {
  segment_search_t search = {ranges, capacity, 0, (uintptr_t)&cleak_writable_image_segments};
  dl_iterate_phdr(collectSegments, &search);
  return search.count;
}

int cleak_static_tls_of_current_thread(cleak_memory_range *range) {
  typedef void (*tls_info_t)(size_t *size, size_t *align);
  tls_info_t info = (tls_info_t)dlsym(RTLD_DEFAULT, "_dl_get_tls_static_info");
  if (info == NULL) return 0;
  size_t size = 0, align = 0;
  info(&size, &align);
  // glibc keeps a thread's `struct pthread` (with its first block of pthread_setspecific
  // values; 2,304 bytes on x86-64) at the thread pointer. On x86-64 the static TLS blocks lie
  // just below it; on AArch64 just above.
  const uintptr_t descriptorSize = 2304;
  uintptr_t self = (uintptr_t)pthread_self();
#if defined(__x86_64__)
  range->start = self > size ? self - size : 0;
  range->end = self + descriptorSize;
#else
  range->start = self > descriptorSize ? self - descriptorSize : 0;
  range->end = self + size;
#endif
  return 1;
}

size_t cleak_scan_for_objects(
    uintptr_t start, uintptr_t end, const uintptr_t *sortedObjects, size_t objectCount,
    cleak_reference_hit *hits, size_t capacity) {
  if (objectCount == 0 || end <= start) return 0;
  uintptr_t lowest = sortedObjects[0], highest = sortedObjects[objectCount - 1];
  size_t found = 0;
  start = (start + sizeof(uintptr_t) - 1) & ~(uintptr_t)(sizeof(uintptr_t) - 1);
  // Page by page, each checked readable first: a range may span unmapped or guard pages.
  const uintptr_t page = 4096;
  for (uintptr_t chunk = start; chunk < end; chunk = (chunk & ~(page - 1)) + page) {
    uintptr_t chunkEnd = (chunk & ~(page - 1)) + page;
    if (chunkEnd > end) chunkEnd = end;
    if (!cleak_is_readable(chunk, chunkEnd - chunk)) continue;
    for (uintptr_t slot = chunk; slot + sizeof(uintptr_t) <= chunkEnd; slot += sizeof(uintptr_t)) {
      uintptr_t candidate = cleak_decode_reference_word(*(const uintptr_t *)slot);
      if (candidate < lowest || candidate > highest) continue;
      size_t low = 0, high = objectCount;
      while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (sortedObjects[middle] < candidate) low = middle + 1; else high = middle;
      }
      if (low < objectCount && sortedObjects[low] == candidate) {
        if (found < capacity) {
          hits[found].slot = slot;
          hits[found].object = candidate;
        }
        found += 1;
      }
    }
  }
  return found;
}

int32_t cleak_thread_id(void) {
  return (int32_t)gettid();
}
