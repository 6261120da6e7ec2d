#define _GNU_SOURCE
#include "CLeakRuntime.h"

#include <stdlib.h>
#include <string.h>

// The memory image that every read of this library goes to once installed: a copy of another
// process's memory (stopped while it was copied) or a core file's, as sorted segments whose bytes
// lie somewhere in this process. An address of the image is translated to its byte in the copy;
// an address outside every segment is not readable, so no read of the image can fault.

bool cleak_memory_image_active = false;

bool cleak_reads_memory_image(void) {
  return cleak_memory_image_active;
}

static cleak_image_segment *segments = NULL;
static size_t segmentCount = 0;
/// The segment the last lookup found, per thread: reads come in runs within one segment.
static __thread size_t lastSegment = 0;

static int compareSegments(const void *left, const void *right) {
  const cleak_image_segment *a = left, *b = right;
  return a->start < b->start ? -1 : a->start > b->start;
}

void cleak_read_from_memory_image(const cleak_image_segment *image, size_t count) {
  cleak_image_segment *copy = malloc((count ? count : 1) * sizeof *copy);
  if (copy == NULL) return;
  size_t kept = 0;
  for (size_t index = 0; index < count; index++) {
    if (image[index].bytes != NULL && image[index].end > image[index].start) copy[kept++] = image[index];
  }
  qsort(copy, kept, sizeof *copy, compareSegments);
  free(segments);
  segments = copy;
  segmentCount = kept;
  lastSegment = 0;
  cleak_memory_image_active = true;
}

/// The index of the segment that holds `address`, or `segmentCount`.
static size_t segmentHolding(uintptr_t address) {
  size_t hint = lastSegment;
  if (hint < segmentCount && segments[hint].start <= address && address < segments[hint].end) return hint;
  size_t low = 0, high = segmentCount;
  while (low < high) {
    size_t middle = low + (high - low) / 2;
    if (segments[middle].end <= address) low = middle + 1;
    else high = middle;
  }
  if (low < segmentCount && segments[low].start <= address) {
    lastSegment = low;
    return low;
  }
  return segmentCount;
}

const unsigned char *cleak_memory_image_bytes(uintptr_t address, size_t length) {
  size_t index = segmentHolding(address);
  if (index == segmentCount || address + length < address || address + length > segments[index].end) return NULL;
  return segments[index].bytes + (address - segments[index].start);
}

bool cleak_memory_image_is_sparse(uintptr_t address) {
  size_t index = segmentHolding(address);
  return index < segmentCount && segments[index].isSparseCopy;
}

bool cleak_memory_image_is_readable(uintptr_t address, size_t length) {
  return cleak_memory_image_bytes(address, length) != NULL;
}

uintptr_t cleak_memory_image_word(uintptr_t address) {
  const unsigned char *bytes = cleak_memory_image_bytes(address, sizeof(uintptr_t));
  if (bytes == NULL) return 0;
  uintptr_t word;
  memcpy(&word, bytes, sizeof word);
  return word;
}

ptrdiff_t cleak_memory_image_read(void *destination, uintptr_t address, size_t length) {
  // A read may run on across segments that touch (a mapping split by its permissions).
  size_t copied = 0;
  while (copied < length) {
    size_t index = segmentHolding(address + copied);
    if (index == segmentCount) break;
    size_t available = segments[index].end - (address + copied);
    size_t chunk = length - copied < available ? length - copied : available;
    memcpy((unsigned char *)destination + copied, segments[index].bytes + (address + copied - segments[index].start), chunk);
    copied += chunk;
  }
  return (ptrdiff_t)copied;
}

static cleak_image_range *images = NULL;
static size_t imageCount = 0;

void cleak_memory_image_set_loaded_images(const cleak_image_range *ranges, size_t count) {
  cleak_image_range *copy = malloc((count ? count : 1) * sizeof *copy);
  if (copy == NULL) return;
  memcpy(copy, ranges, count * sizeof *copy);
  for (size_t index = 0; index < count; index++) copy[index].path = ranges[index].path ? strdup(ranges[index].path) : NULL;
  for (size_t index = 0; index < imageCount; index++) free((void *)images[index].path);
  free(images);
  images = copy;
  imageCount = count;
}

const cleak_image_range *cleak_memory_image_loaded_image(uintptr_t address) {
  for (size_t index = 0; index < imageCount; index++) {
    if (images[index].start <= address && address < images[index].end) return &images[index];
  }
  return NULL;
}

const cleak_image_range *cleak_memory_image_loaded_images(size_t *count) {
  *count = imageCount;
  return images;
}
