#define _GNU_SOURCE
#include "CLeakRuntime.h"
#include "ReadableMemory.h"
#include "ReferenceWords.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
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

/// Whether the thread descriptor's layout was found to hold (`checkThreadSpecificLayout`).
static int layoutHolds = 0;

int cleak_static_tls_of_current_thread(cleak_memory_range *range) {
  typedef void (*tls_info_t)(size_t *size, size_t *align);
  tls_info_t info = (tls_info_t)dlsym(RTLD_DEFAULT, "_dl_get_tls_static_info");
  if (info == NULL) return 0;
  size_t size = 0, align = 0;
  info(&size, &align);
  // glibc keeps a thread's `struct pthread` at the thread pointer. On x86-64 the static TLS
  // blocks lie just below it; on AArch64 just above. Its pthread-specific values are roots of
  // their own (`cleak_thread_specific_values`) when its layout holds.
  const uintptr_t descriptorSize = layoutHolds ? 0 : cleak_glibc_thread_descriptor_size;
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

// Each thread's pthread-specific values and dynamic TLS blocks, found through its descriptor.
// glibc clears every other thread's pthread-specific values in a forked child (`reclaim_stacks`
// in `sysdeps/nptl/fork.h`), so a capture child sees none of them: they are read here, in the
// process itself, before the fork, as are the blocks (found, not copied: the child keeps them).

/// The bytes of a thread descriptor this file reads: up to the end of its key blocks' addresses.
enum { descriptorPrefix = cleak_glibc_descriptor_key_blocks_offset + cleak_glibc_key_blocks * sizeof(uintptr_t) };

/// The `T` at `offset` of `bytes`.
#define FIELD(T, bytes, offset) (*(const T *)((const unsigned char *)(bytes) + (offset)))

/// Whether `prefix`, the first bytes of a thread descriptor at `descriptor`, are those of
/// `thread`'s: it points to itself twice, holds the thread's id and points to its own first key
/// block.
static int isDescriptorOf(const void *prefix, uintptr_t descriptor, int32_t thread) {
  return FIELD(uintptr_t, prefix, cleak_glibc_descriptor_tcb_offset) == descriptor &&
         FIELD(uintptr_t, prefix, cleak_glibc_descriptor_self_offset) == descriptor &&
         FIELD(int32_t, prefix, cleak_glibc_descriptor_tid_offset) == thread &&
         FIELD(uintptr_t, prefix, cleak_glibc_descriptor_key_blocks_offset) ==
             descriptor + cleak_glibc_descriptor_first_key_block_offset;
}

/// An image with thread-local storage: its TLS module id, its block's size and its name.
typedef struct {
  size_t module;
  uintptr_t size;
  const char *name;
  uintptr_t callingThreadsBlock;  // `dlpi_tls_data`: null while not allocated for the calling thread
} tls_image_t;

typedef struct {
  tls_image_t images[256];
  size_t count;
} tls_image_list_t;

static int collectTLSImages(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  tls_image_list_t *list = data;
  for (int index = 0; info->dlpi_tls_modid > 0 && index < info->dlpi_phnum; index++) {
    if (info->dlpi_phdr[index].p_type != PT_TLS || list->count == sizeof list->images / sizeof list->images[0]) continue;
    list->images[list->count++] = (tls_image_t){
        info->dlpi_tls_modid, info->dlpi_phdr[index].p_memsz, info->dlpi_name, (uintptr_t)info->dlpi_tls_data};
  }
  return 0;
}

/// The entries of the dynamic thread vector at `vector`, read with checks (at most `capacity`,
/// from entry 0); returns how many there are, or 0.
static size_t readThreadVector(uintptr_t vector, cleak_glibc_dtv_entry *entries, size_t capacity) {
  cleak_glibc_dtv_entry header;
  if (vector < sizeof header || cleak_read_memory(&header, vector - sizeof header, sizeof header) != (ptrdiff_t)sizeof header) return 0;
  size_t count = header.block + 1 < capacity ? header.block + 1 : capacity;
  return cleak_read_memory(entries, vector, count * sizeof *entries) == (ptrdiff_t)(count * sizeof *entries) ? count : 0;
}

enum { threadVectorCapacity = 1024 };

/// Whether the dynamic thread vector of the descriptor at `self` (the calling thread's) holds,
/// for each image whose block the calling thread has, that block.
static int dynamicThreadVectorHolds(uintptr_t self) {
  static tls_image_list_t list;
  static cleak_glibc_dtv_entry entries[threadVectorCapacity];
  list.count = 0;
  dl_iterate_phdr(collectTLSImages, &list);
  size_t count = readThreadVector(FIELD(uintptr_t, self, cleak_glibc_descriptor_dtv_offset), entries, threadVectorCapacity);
  size_t checked = 0;
  for (size_t index = 0; index < list.count; index++) {
    const tls_image_t *image = &list.images[index];
    if (image->callingThreadsBlock == 0) continue;
    if (image->module >= count || entries[image->module].block != image->callingThreadsBlock) return 0;
    checked += 1;
  }
  return checked > 0;
}

/// The main thread's descriptor, when this library was loaded on the main thread, or 0: it does
/// not lie at the top of the main thread's stack.
static uintptr_t mainDescriptor = 0;

/// Sets a key of its own on the loading thread and looks for its value where the layout says.
__attribute__((constructor)) static void checkThreadSpecificLayout(void) {
  if (!cleak_glibc_thread_specific_layout_known) return;
  static char marker;
  pthread_key_t key;
  if (pthread_key_create(&key, NULL) != 0) return;
  uintptr_t self = (uintptr_t)pthread_self();
  if (gettid() == getpid()) mainDescriptor = self;
  if (key < cleak_glibc_keys_per_block && pthread_setspecific(key, &marker) == 0) {
    uintptr_t slot = cleak_glibc_descriptor_first_key_block_offset + key * sizeof(cleak_glibc_key_data) +
                     offsetof(cleak_glibc_key_data, value);
    layoutHolds = isDescriptorOf((const void *)self, self, (int32_t)gettid()) &&
                  FIELD(uintptr_t, self, slot) == (uintptr_t)&marker && dynamicThreadVectorHolds(self);
    pthread_setspecific(key, NULL);
  }
  pthread_key_delete(key);
}

bool cleak_thread_specific_layout_holds(void) {
  return layoutHolds;
}

/// Finds `thread`'s descriptor near `stackEnd` (below it by the descriptor's size and at most a
/// page of alignment) and copies its first bytes to `prefix`; returns its address, or 0.
static uintptr_t descriptorBelow(uintptr_t stackEnd, int32_t thread, unsigned char prefix[descriptorPrefix]) {
  const uintptr_t size = cleak_glibc_thread_descriptor_size;
  if (stackEnd < size + cleak_page_size) return 0;
  for (uintptr_t candidate = (stackEnd - size) & ~(uintptr_t)15; candidate + cleak_page_size >= stackEnd - size; candidate -= 16) {
    uintptr_t first = 0;
    if (cleak_read_memory(&first, candidate, sizeof first) != (ptrdiff_t)sizeof first || first != candidate) continue;
    if (cleak_read_memory(prefix, candidate, descriptorPrefix) == (ptrdiff_t)descriptorPrefix && isDescriptorOf(prefix, candidate, thread)) {
      return candidate;
    }
  }
  return 0;
}

/// Copies the first bytes of `thread`'s descriptor to `prefix`: the calling thread's, the main
/// thread's, or the one at the top of the stack mapping that ends at `stackEnd`. Returns 0 when
/// the layout does not hold or no such descriptor is found.
static int copyDescriptor(int32_t thread, uintptr_t stackEnd, unsigned char prefix[descriptorPrefix]) {
  if (!layoutHolds) return 0;
  if (thread == (int32_t)gettid()) {
    memcpy(prefix, (const void *)pthread_self(), descriptorPrefix);
    return 1;
  }
  if (thread == (int32_t)getpid() && mainDescriptor != 0) {
    return cleak_read_memory(prefix, mainDescriptor, descriptorPrefix) == (ptrdiff_t)descriptorPrefix &&
           isDescriptorOf(prefix, mainDescriptor, thread);
  }
  return descriptorBelow(stackEnd, thread, prefix) != 0;
}

ptrdiff_t cleak_thread_specific_values(int32_t thread, uintptr_t stackEnd, cleak_thread_specific_value *values, size_t capacity) {
  unsigned char prefix[descriptorPrefix];
  if (!copyDescriptor(thread, stackEnd, prefix)) return -1;
  const uintptr_t *blocks = &FIELD(uintptr_t, prefix, cleak_glibc_descriptor_key_blocks_offset);
  size_t found = 0;
  for (uint32_t block = 0; block < cleak_glibc_key_blocks; block++) {
    cleak_glibc_key_data data[cleak_glibc_keys_per_block];
    if (blocks[block] == 0 || cleak_read_memory(data, blocks[block], sizeof data) != (ptrdiff_t)sizeof data) continue;
    for (uint32_t index = 0; index < cleak_glibc_keys_per_block; index++) {
      if (data[index].value == 0) continue;
      if (found < capacity) {
        values[found] = (cleak_thread_specific_value){
            block * cleak_glibc_keys_per_block + index,
            blocks[block] + index * sizeof(cleak_glibc_key_data) + offsetof(cleak_glibc_key_data, value), data[index].value};
      }
      found += 1;
    }
  }
  return (ptrdiff_t)found;
}

ptrdiff_t cleak_dynamic_tls_blocks(int32_t thread, uintptr_t stackEnd, cleak_dynamic_tls_block *blocks, size_t capacity) {
  unsigned char prefix[descriptorPrefix];
  if (!copyDescriptor(thread, stackEnd, prefix)) return -1;
  tls_image_list_t *list = malloc(sizeof *list);
  cleak_glibc_dtv_entry *entries = malloc(threadVectorCapacity * sizeof *entries);
  size_t found = 0;
  if (list != NULL && entries != NULL) {
    list->count = 0;
    dl_iterate_phdr(collectTLSImages, list);
    size_t count = readThreadVector(FIELD(uintptr_t, prefix, cleak_glibc_descriptor_dtv_offset), entries, threadVectorCapacity);
    for (size_t index = 0; index < list->count; index++) {
      const tls_image_t *image = &list->images[index];
      if (image->module >= count) continue;
      cleak_glibc_dtv_entry entry = entries[image->module];
      // Only blocks from malloc: static TLS lies inside the thread's stack or static TLS root.
      if (entry.allocation == 0 || entry.block == 0 || entry.block == UINTPTR_MAX) continue;
      if (found < capacity) blocks[found] = (cleak_dynamic_tls_block){entry.block, entry.block + image->size, image->name};
      found += 1;
    }
  }
  free(list);
  free(entries);
  return (ptrdiff_t)found;
}
