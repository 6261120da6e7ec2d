#define _GNU_SOURCE
#include "CLeakRuntime.h"
#include "ReadableMemory.h"
#include "ReferenceWords.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <unistd.h>

// Conservative scanning of root memory (global data, thread stacks, thread-local storage) for
// references to captured objects (`cleak_reference_in_word` says which words count).

typedef struct {
  cleak_memory_range *ranges;
  size_t capacity;
  size_t count;
  uintptr_t excluded;  // an address inside the image to leave out
} segment_search_t;

static int collectSegments(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  segment_search_t *search = data;
  // The library's own data is left out when it is an image of its own (the agent); linked into
  // the program (whose name is empty), the program's data is all kept.
  int excluded = 0;
  for (int index = 0; info->dlpi_name[0] != '\0' && index < info->dlpi_phnum; index++) {
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
  // glibc keeps a thread's `struct pthread` at the thread pointer. On x86-64 the static TLS
  // blocks lie just below it; on AArch64 just above.
  const uintptr_t descriptorSize = cleak_glibc_thread_descriptor_size;
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

typedef struct {
  cleak_reference_hit *hits;
  size_t capacity;
  size_t found;
} hit_list_t;

static void append(hit_list_t *list, uintptr_t slot, uintptr_t object) {
  if (list->found < list->capacity) {
    list->hits[list->found].slot = slot;
    list->hits[list->found].object = object;
  }
  list->found += 1;
}

// Calls a visitor with each aligned word of the readable pages of [start, end), decoded, page by
// page: a range may span unmapped or guard pages. Each visitor has its own chunk function, in
// which the compiler inlines it (a call through a pointer per word cost a third of the scan).
typedef struct {
  uintptr_t start, end;
  void *context;
} chunk_scan_t;

static inline __attribute__((always_inline)) void scanChunkWith(
    chunk_scan_t *scan, void (*visit)(uintptr_t slot, uintptr_t candidate, void *context)) {
  for (uintptr_t slot = scan->start; slot + sizeof(uintptr_t) <= scan->end; slot += sizeof(uintptr_t)) {
    visit(slot, cleak_reference_in_word(cleak_word_at(slot)), scan->context);
  }
}

// (In a capture child a page whose mapping changed after the mappings were read faults; the
// guard skips the rest of that page.) The mappings' snapshot is held for the whole scan, so
// visitors test readability with `cleak_is_readable_while_held`.
static void forEachReadableWord(uintptr_t start, uintptr_t end, void (*scanChunk)(void *scan), void *context) {
  const uintptr_t page = cleak_page_size;
  start = (start + sizeof(uintptr_t) - 1) & ~(uintptr_t)(sizeof(uintptr_t) - 1);
  cleak_hold_readable_regions();
  for (uintptr_t chunk = start; chunk < end; chunk = (chunk & ~(page - 1)) + page) {
    uintptr_t chunkEnd = (chunk & ~(page - 1)) + page;
    if (chunkEnd > end) chunkEnd = end;
    if (!cleak_is_readable_while_held(chunk, chunkEnd - chunk)) continue;
    chunk_scan_t scan = {chunk, chunkEnd, context};
    cleak_run_guarded(scanChunk, &scan);
  }
  cleak_release_readable_regions();
}

typedef struct {
  const uintptr_t *objects;
  size_t count;
  hit_list_t list;
} object_search_t;

static inline __attribute__((always_inline)) void findObject(uintptr_t slot, uintptr_t candidate, void *context) {
  object_search_t *search = context;
  if (candidate < search->objects[0] || candidate > search->objects[search->count - 1]) return;
  size_t low = 0, high = search->count;
  while (low < high) {
    size_t middle = low + (high - low) / 2;
    if (search->objects[middle] < candidate) low = middle + 1; else high = middle;
  }
  if (low < search->count && search->objects[low] == candidate) append(&search->list, slot, candidate);
}

static void scanChunkForObjects(void *scan) {
  scanChunkWith(scan, findObject);
}

size_t cleak_scan_for_objects(
    uintptr_t start, uintptr_t end, const uintptr_t *sortedObjects, size_t objectCount,
    cleak_reference_hit *hits, size_t capacity) {
  if (objectCount == 0 || end <= start) return 0;
  object_search_t search = {sortedObjects, objectCount, {hits, capacity, 0}};
  forEachReadableWord(start, end, scanChunkForObjects, &search);
  return search.list.found;
}

typedef struct {
  const uintptr_t *descriptors;
  size_t count;
  hit_list_t list;
} storage_search_t;

// A class instance's metadata holds its nominal type descriptor (`cleak_class_metadata`).
// Storage objects come from malloc, 16-byte aligned: most words of global data (pointers into
// code and constants, small integers) fail that test first.
static inline __attribute__((always_inline)) void findStorage(uintptr_t slot, uintptr_t candidate, void *context) {
  storage_search_t *search = context;
  if (!cleak_is_plausible_address(candidate, 16) || !cleak_is_readable_while_held(candidate, 16)) return;
  uintptr_t metadata = cleak_word_at(candidate);
  if (!cleak_is_plausible_address(metadata, 8) || !cleak_is_readable_while_held(metadata, sizeof(cleak_class_metadata))) return;
  uintptr_t descriptor = cleak_word_at(metadata + offsetof(cleak_class_metadata, description));
  for (size_t index = 0; index < search->count; index++) {
    if (descriptor == search->descriptors[index]) append(&search->list, slot, candidate);
  }
}

static void scanChunkForStorage(void *scan) {
  scanChunkWith(scan, findStorage);
}

size_t cleak_scan_for_collection_storage(
    uintptr_t start, uintptr_t end, const uintptr_t *descriptors, size_t descriptorCount,
    cleak_reference_hit *hits, size_t capacity) {
  storage_search_t search = {descriptors, descriptorCount, {hits, capacity, 0}};
  forEachReadableWord(start, end, scanChunkForStorage, &search);
  return search.list.found;
}

int32_t cleak_thread_id(void) {
  return (int32_t)gettid();
}
