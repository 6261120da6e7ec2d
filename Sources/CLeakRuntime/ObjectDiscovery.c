#define _GNU_SOURCE
#include "CLeakRuntime.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

// Finding the live Swift objects of a memory image that no tracker recorded: every 16-byte
// aligned address of the scanned ranges whose first word is the metadata of a heap object and
// whose second is a plausible, live reference count. An object found is skipped whole (a value
// inside it that looks like a header is not an object), and so is one whose count says it is
// being or has been deinitialized (memory freed but not overwritten, as jemalloc leaves it).

/// The largest reference count taken for real: a higher one is a word that only looks like one.
enum { maximumStrongExtra = 1 << 24, maximumUnowned = 1 << 24 };

/// What a metadata address was found to be: not heap metadata, or the kind and instance size
/// (0 when the metadata does not say) of the objects it describes.
typedef struct {
  uintptr_t metadata;
  uint32_t size;
  uint8_t kind;  // 0: unknown yet (empty slot), 1: not metadata, else cleak_found_object_kind + 2
} verdict_t;

enum {
  page = 4096,
  verdictSlots = 1 << 16,
  /// The verdict of a class whose objects are skipped whole but not reported: the standard
  /// library's storage, and the tool's own agent's.
  leftOutClass = 0xff,
};

typedef struct {
  verdict_t *verdicts;
  cleak_found_object *found;
  size_t count, capacity;
  bool glibcBlocks;
} discovery_t;

static bool inImage(uintptr_t address) {
  return cleak_memory_image_loaded_image(address) != NULL;
}

static uint32_t u32(uintptr_t address) {
  uint32_t value = 0;
  cleak_memory_image_read(&value, address, sizeof value);
  return value;
}

/// The target of the relative pointer at `address` (an indirect one when `indirectable` and its
/// low bit is set: the target is then a pointer to it), 0 when it cannot be read.
static uintptr_t relativeTarget(uintptr_t address, bool indirectable) {
  int32_t offset = (int32_t)u32(address);
  if (offset == 0) return 0;
  if (indirectable && (offset & 1)) return cleak_memory_image_word(address + (intptr_t)(offset & ~1));
  return address + (intptr_t)offset;
}

/// Whether the context descriptor `descriptor` belongs to the standard library's module
/// (`Swift`): its storage classes (arrays', dictionaries', strings') are part of what owns them,
/// as a tracker, which never records them, sees them; the runtime may be a library of its own or
/// linked into the program.
static bool isStandardLibraryType(uintptr_t descriptor) {
  for (int depth = 0; depth < 16 && descriptor != 0; depth++) {
    uint32_t flags = u32(descriptor);
    if ((flags & cleak_context_descriptor_kind_mask) == 0) {  // a module
      uintptr_t name = relativeTarget(descriptor + 8, false);
      char text[6] = {0};
      return name != 0 && cleak_memory_image_read(text, name, sizeof text) == sizeof text && memcmp(text, "Swift", 6) == 0;
    }
    descriptor = relativeTarget(descriptor + 4, true);
  }
  return false;
}

/// Judges `metadata` as the metadata of a heap object: a class whose nominal type descriptor lies
/// in a loaded image and says "class"; a closure context's or a task's metadata in a loaded image;
/// a generic box whose boxed type's metadata is readable.
static verdict_t judge(uintptr_t metadata) {
  verdict_t verdict = {metadata, 0, 1};
  if (!cleak_memory_image_is_readable(metadata, sizeof(cleak_class_metadata))) return verdict;
  uintptr_t kind = cleak_memory_image_word(metadata);
  if (kind == cleak_metadata_kind_class) {
    uintptr_t descriptor = cleak_memory_image_word(metadata + offsetof(cleak_class_metadata, description));
    if (!cleak_is_plausible_address(descriptor, 4) || !inImage(descriptor)) return verdict;
    if ((u32(descriptor) & cleak_context_descriptor_kind_mask) != cleak_context_descriptor_kind_class) return verdict;
    uint32_t size = u32(metadata + offsetof(cleak_class_metadata, instanceSize));
    if (size < 2 * sizeof(uintptr_t) || size > (1u << 28)) return verdict;
    verdict.size = size;
    const cleak_image_range *image = cleak_memory_image_loaded_image(descriptor);
    bool leftOut = (image != NULL && image->isLeakDetector) ||
                   ((image == NULL || !image->listsStandardLibraryClasses) && isStandardLibraryType(descriptor));
    verdict.kind = leftOut ? leftOutClass : cleak_found_class_instance + 2;
  } else if (kind == cleak_metadata_kind_heap_local_variable) {
    if (!inImage(metadata)) return verdict;
    uintptr_t description = cleak_memory_image_word(metadata + offsetof(cleak_closure_context_metadata, captureDescription));
    if (description != 0 && !inImage(description)) return verdict;
    verdict.kind = cleak_found_closure_context + 2;
  } else if (kind == cleak_metadata_kind_heap_generic_local_variable) {
    uintptr_t boxed = cleak_memory_image_word(metadata + offsetof(cleak_generic_box_metadata, boxedType));
    if (!cleak_is_plausible_address(boxed, 8) || !cleak_memory_image_is_readable(boxed - sizeof(uintptr_t), 2 * sizeof(uintptr_t)))
      return verdict;
    verdict.kind = cleak_found_box + 2;
  } else if (kind == cleak_metadata_kind_task) {
    if (!inImage(metadata)) return verdict;
    verdict.kind = cleak_found_task + 2;
  }
  return verdict;
}

static verdict_t verdictFor(discovery_t *discovery, uintptr_t metadata) {
  size_t slot = (size_t)((metadata >> 3) * 0x9E3779B97F4A7C15ull >> 48) & (verdictSlots - 1);
  verdict_t *cached = &discovery->verdicts[slot];
  if (cached->kind != 0 && cached->metadata == metadata) return *cached;
  verdict_t verdict = judge(metadata);
  *cached = verdict;  // a collision replaces the older verdict
  return verdict;
}

/// Whether the count word of the object at `object` is that of a live object (neither being
/// deinitialized nor freed): an inline count with room for the strong references, or a side
/// table that points back at the object and holds such a count.
static bool isLiveCount(uintptr_t object, uint64_t bits, bool *deinited) {
  *deinited = false;
  bool slow = bits >> 63;
  if (slow && (bits & 0xffffffffu) == 0xffffffffu) return true;  // immortal
  if (slow) {
    if (((bits >> 62) & 1) == 0) return false;
    uintptr_t side = (uintptr_t)((bits & (((uint64_t)1 << 62) - 1)) << 3);
    if (!cleak_is_plausible_address(side, 16) || cleak_memory_image_word(side) != object) return false;
    const unsigned char *count = cleak_memory_image_bytes(side + 16, sizeof(uint64_t));
    if (count == NULL) return false;
    memcpy(&bits, count, sizeof bits);
    if (bits >> 63) return false;  // a side table's count has no side table
  }
  if ((bits >> 32) & 1) {
    *deinited = true;
    return false;
  }
  uint64_t unowned = (bits >> 1) & 0x7fffffffu;
  uint64_t strongExtra = (bits >> 33) & ((1u << 30) - 1);
  return (slow || unowned >= 1) && unowned < maximumUnowned && strongExtra < maximumStrongExtra;
}

/// Whether `object`, of `size` bytes, starts a block of glibc's `malloc` that is in use: the
/// chunk header before it has a size that holds the object, and the next chunk says this one is
/// in use (or the chunk was mapped on its own). Objects of a type that a word inside some other
/// structure only imitates fail it.
static bool isGlibcBlockInUse(uintptr_t object, uint32_t size) {
  enum { previousInUse = 1, mapped = 2, flags = 7 };
  uintptr_t header = cleak_memory_image_word(object - sizeof(uintptr_t));
  uintptr_t chunkSize = header & ~(uintptr_t)flags;
  if (chunkSize < 4 * sizeof(uintptr_t) || (chunkSize & 15) != 0 || chunkSize - sizeof(uintptr_t) < size) return false;
  uintptr_t chunk = object - 2 * sizeof(uintptr_t);
  if (header & mapped) {
    // A block mapped on its own: its chunk starts `offset` bytes (for its alignment) into pages
    // of its own, which it fills, and which the image holds.
    enum { page = 4096 };
    uintptr_t offset = cleak_memory_image_word(chunk);
    return offset < page && ((chunk - offset) & (page - 1)) == 0 && ((offset + chunkSize) & (page - 1)) == 0 &&
           cleak_memory_image_bytes(chunk - offset, offset + chunkSize) != NULL;
  }
  uintptr_t next = chunk + chunkSize;
  const unsigned char *nextHeader = cleak_memory_image_bytes(next + sizeof(uintptr_t), sizeof(uintptr_t));
  if (nextHeader == NULL) return false;
  uintptr_t nextSize;
  memcpy(&nextSize, nextHeader, sizeof nextSize);
  return (nextSize & previousInUse) != 0;
}

static void append(discovery_t *discovery, cleak_found_object object) {
  if (discovery->count == discovery->capacity) {
    size_t capacity = discovery->capacity ? discovery->capacity * 2 : 4096;
    cleak_found_object *grown = realloc(discovery->found, capacity * sizeof *grown);
    if (grown == NULL) return;
    discovery->found = grown;
    discovery->capacity = capacity;
  }
  discovery->found[discovery->count++] = object;
}

/// Which pages of [start, end) of a sparse copy this process ever touched (one byte per page,
/// bit 0), or NULL when the range is no sparse copy or `mincore` cannot say: every page counts.
static unsigned char *touchedPages(uintptr_t start, uintptr_t end) {
  if (!cleak_memory_image_is_sparse(start)) return NULL;
  const unsigned char *bytes = cleak_memory_image_bytes(start, end - start);
  if (bytes == NULL || ((uintptr_t)bytes & (page - 1)) != 0) return NULL;
  unsigned char *pages = malloc((end - start + page - 1) / page);
  if (pages != NULL && mincore((void *)bytes, end - start, pages) != 0) {
    free(pages);
    return NULL;
  }
  return pages;
}

static void scanRange(discovery_t *discovery, uintptr_t start, uintptr_t end) {
  unsigned char *touched = (start & (page - 1)) == 0 ? touchedPages(start, end) : NULL;
  start = (start + 15) & ~(uintptr_t)15;
  uintptr_t address = start;
  while (address + 2 * sizeof(uintptr_t) <= end) {
    if (touched != NULL && (touched[(address - start) / page] & 1) == 0) {  // zeros: no object
      address = (address & ~(uintptr_t)(page - 1)) + page;
      continue;
    }
    const unsigned char *bytes = cleak_memory_image_bytes(address, 2 * sizeof(uintptr_t));
    if (bytes == NULL) {
      address += 16;
      continue;
    }
    uintptr_t metadata;
    uint64_t count;
    memcpy(&metadata, bytes, sizeof metadata);
    memcpy(&count, bytes + sizeof metadata, sizeof count);
    if (!cleak_is_plausible_address(metadata, 8) || count == 0) {
      address += 16;
      continue;
    }
    verdict_t verdict = verdictFor(discovery, metadata);
    if (verdict.kind < 2) {
      address += 16;
      continue;
    }
    bool deinited;
    bool live = isLiveCount(address, count, &deinited) && (!discovery->glibcBlocks || isGlibcBlockInUse(address, verdict.size));
    if (live && verdict.kind != leftOutClass) append(discovery, (cleak_found_object){address, metadata, verdict.size, (uint8_t)(verdict.kind - 2)});
    // A live or once-live object is skipped whole; anything else that only looked like a header is not.
    uintptr_t extent = (live || deinited) && verdict.size > 16 ? ((uintptr_t)verdict.size + 15) & ~(uintptr_t)15 : 16;
    address += extent;
  }
  free(touched);
}

cleak_found_object *cleak_memory_image_find_objects(const cleak_memory_range *ranges, size_t rangeCount, bool glibcBlocks,
                                                    size_t *count) {
  discovery_t discovery = {calloc(verdictSlots, sizeof(verdict_t)), NULL, 0, 0, glibcBlocks};
  *count = 0;
  if (discovery.verdicts == NULL) return NULL;
  for (size_t index = 0; index < rangeCount; index++) scanRange(&discovery, ranges[index].start, ranges[index].end);
  free(discovery.verdicts);
  *count = discovery.count;
  return discovery.found;
}
