#define _GNU_SOURCE
#include "CLeakRuntime.h"
#include "ReadableMemory.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

// The reader callbacks of `MemoryReaderInterface.h` (current ABI).
typedef void (*FreeBytesFunction)(void *readerContext, const void *bytes, void *context);
typedef const void *(*ReadBytesFunction)(void *readerContext, swift_addr_t address, uint64_t size, void **outFreeContext);
typedef uint64_t (*GetStringLengthFunction)(void *readerContext, swift_addr_t address);
typedef swift_addr_t (*GetSymbolAddressFunction)(void *readerContext, const char *name, uint64_t nameLength);

extern SwiftReflectionContextRef swift_reflection_createReflectionContext(
    void *readerContext, uint8_t pointerSize, FreeBytesFunction, ReadBytesFunction, GetStringLengthFunction,
    GetSymbolAddressFunction);

typedef struct { void *begin; void *end; } section_t;
typedef struct { section_t section; uint64_t offset; } section_pair_t;
typedef struct {
  section_pair_t field, associatedTypes, builtinTypes, capture, typeReferences, reflectionStrings;
  uint64_t localStartAddress, remoteStartAddress;
} reflection_info_t;
extern void swift_reflection_addReflectionInfo(SwiftReflectionContextRef, reflection_info_t);

// `swift::MetadataSections` (version 5 and later keep this prefix), from libswiftCore.
typedef struct { uintptr_t start; uintptr_t length; } metadata_range_t;
typedef struct {
  uintptr_t version;
  const void *baseAddress;
  void *unused0;
  void *unused1;
  metadata_range_t protocols, protocolConformances, typeMetadata, typeref, reflstr, fieldmd, assocty, replace,
      replace2, builtin, capture, multipayloadEnums;
} metadata_sections_t;
extern void swift_enumerateAllMetadataSections(bool (*body)(const metadata_sections_t *, void *), void *context);

static void freeBytes(void *readerContext, const void *bytes, void *context) {
  (void)readerContext;
  if (context != NULL) free((void *)bytes);  // NULL context: the bytes were not copied
}

static const void *readBytes(void *readerContext, swift_addr_t address, uint64_t size, void **outFreeContext) {
  (void)readerContext;
  *outFreeContext = NULL;
  // A memory image's bytes are handed out in place when one segment holds them all.
  if (__builtin_expect(cleak_memory_image_active, 0)) {
    const unsigned char *bytes = cleak_memory_image_bytes((uintptr_t)address, (size_t)size);
    if (bytes != NULL) return bytes;
  }
  // In the program's own process, readable memory is handed out in place (no copy: reflection
  // of live objects the caller holds). In a capture child it is always a copy made by
  // `cleak_read_memory`: RemoteMirror copies what it is handed with memcpy, which there could
  // fault unguarded where the mappings changed since they were read, and which AddressSanitizer
  // checks (RemoteMirror reads past heap allocations, into redzones, on purpose: it reads what
  // metadata says is there).
  if (!cleak_memory_image_active && !cleak_reads_are_guarded() && cleak_is_readable((uintptr_t)address, (size_t)size)) {
    return (const void *)(uintptr_t)address;
  }
  // A size read from garbage metadata can be anything: no real metadata read is this large.
  if (size > ((uint64_t)64 << 20)) return NULL;
  void *buffer = malloc(size ? size : 1);
  *outFreeContext = buffer;
  if (buffer == NULL) return NULL;
  if (size > 0 && cleak_read_memory(buffer, (uintptr_t)address, size) != (ptrdiff_t)size) {
    free(buffer);
    *outFreeContext = NULL;
    return NULL;
  }
  return buffer;
}

static uint64_t stringLength(void *readerContext, swift_addr_t address) {
  (void)readerContext;
  if (!cleak_memory_image_active && cleak_is_readable((uintptr_t)address, 1)) {
    // Strings live in read-only sections of loaded images: bound the scan by the mapping.
    const char *start = (const char *)(uintptr_t)address;
    size_t length = 0;
    while (cleak_is_readable((uintptr_t)address + length, 64)) {
      const char *end = memchr(start + length, 0, 64);
      if (end != NULL) return (uint64_t)(end - start);
      length += 64;
    }
  }
  // Strings live in read-only sections of loaded images; read them a chunk at a time so that a
  // bad address is a failure (length 0), not a crash.
  char chunk[256];
  uint64_t length = 0;
  for (;;) {
    ptrdiff_t copied = cleak_read_memory(chunk, (uintptr_t)(address + length), sizeof chunk);
    if (copied <= 0) {
      // The string may end right before an unmapped page: retry byte by byte.
      char byte;
      if (cleak_read_memory(&byte, (uintptr_t)(address + length), 1) != 1) return 0;
      if (byte == 0) return length;
      length += 1;
      continue;
    }
    void *end = memchr(chunk, 0, (size_t)copied);
    if (end != NULL) return length + (uint64_t)((char *)end - chunk);
    length += (uint64_t)copied;
  }
}

static uintptr_t (*imageSymbolLookup)(const char *name) = NULL;
static cleak_reflection_sections *imageSections = NULL;
static size_t imageSectionCount = 0;

void cleak_memory_image_set_symbols(uintptr_t (*lookup)(const char *name)) {
  imageSymbolLookup = lookup;
}

void cleak_memory_image_set_reflection_sections(const cleak_reflection_sections *sections, size_t count) {
  free(imageSections);
  imageSections = malloc((count ? count : 1) * sizeof *sections);
  if (imageSections == NULL) return;
  memcpy(imageSections, sections, count * sizeof *sections);
  imageSectionCount = count;
}

/// The section at `range` as RemoteMirror takes it: its bytes where this process reads them (the
/// address itself, or its place in the memory image's copy), with the offset that makes those
/// local addresses remote ones; an empty section when the bytes are not there whole.
static section_pair_t readableSection(cleak_memory_range range, uint64_t *local, uint64_t *remote) {
  section_pair_t pair = {{NULL, NULL}, 0};
  if (range.end <= range.start) return pair;
  const unsigned char *bytes = cleak_memory_image_active ? cleak_memory_image_bytes(range.start, range.end - range.start)
                                                         : (const unsigned char *)range.start;
  if (bytes == NULL) return pair;
  pair.section.begin = (void *)bytes;
  pair.section.end = (void *)(bytes + (range.end - range.start));
  *local = (uint64_t)(uintptr_t)bytes;
  *remote = range.start;
  return pair;
}

void cleak_reflection_add_sections(SwiftReflectionContextRef context, const cleak_reflection_sections *sections, size_t count) {
  // Each section on its own: RemoteMirror takes an info's remote addresses to be its local ones
  // plus one offset, which holds within one segment of a memory image only.
  for (size_t index = 0; index < count; index++) {
    const cleak_reflection_sections *image = &sections[index];
    const cleak_memory_range ranges[6] = {image->fieldmd, image->assocty, image->builtin,
                                          image->capture, image->typeref, image->reflstr};
    for (int which = 0; which < 6; which++) {
      reflection_info_t info;
      memset(&info, 0, sizeof info);
      section_pair_t pair = readableSection(ranges[which], &info.localStartAddress, &info.remoteStartAddress);
      if (pair.section.begin == NULL) continue;
      switch (which) {
      case 0: info.field = pair; break;
      case 1: info.associatedTypes = pair; break;
      case 2: info.builtinTypes = pair; break;
      case 3: info.capture = pair; break;
      case 4: info.typeReferences = pair; break;
      default: info.reflectionStrings = pair; break;
      }
      swift_reflection_addReflectionInfo(context, info);
    }
  }
}

static swift_addr_t symbolAddress(void *readerContext, const char *name, uint64_t nameLength) {
  (void)readerContext;
  char buffer[256];
  if (nameLength >= sizeof buffer) return 0;
  memcpy(buffer, name, nameLength);
  buffer[nameLength] = 0;
  if (__builtin_expect(cleak_memory_image_active, 0)) return imageSymbolLookup != NULL ? imageSymbolLookup(buffer) : 0;
  return (swift_addr_t)(uintptr_t)dlsym(RTLD_DEFAULT, buffer);
}

static section_pair_t pair(metadata_range_t range) {
  section_pair_t result = {{(void *)range.start, (void *)(range.start + range.length)}, 0};
  return result;
}

static bool addImage(const metadata_sections_t *sections, void *context) {
  reflection_info_t info;
  memset(&info, 0, sizeof info);
  info.field = pair(sections->fieldmd);
  info.associatedTypes = pair(sections->assocty);
  info.builtinTypes = pair(sections->builtin);
  info.capture = pair(sections->capture);
  info.typeReferences = pair(sections->typeref);
  info.reflectionStrings = pair(sections->reflstr);
  info.localStartAddress = (uint64_t)(uintptr_t)sections->baseAddress;
  info.remoteStartAddress = info.localStartAddress;
  swift_reflection_addReflectionInfo((SwiftReflectionContextRef)context, info);
  return true;
}

SwiftReflectionContextRef cleak_reflection_context_create(void) {
  SwiftReflectionContextRef context =
      swift_reflection_createReflectionContext(NULL, sizeof(void *), freeBytes, readBytes, stringLength, symbolAddress);
  if (context == NULL) return NULL;
  // The first lookup of a field descriptor in an image indexes all of the image's descriptors
  // (milliseconds for Foundation's). Looking up, here, a type that exists nowhere did not build
  // those indexes (a capture's child still built them, in the same time), so each child builds
  // the ones its lookups need.
  if (__builtin_expect(cleak_memory_image_active, 0)) {
    cleak_reflection_add_sections(context, imageSections, imageSectionCount);
  } else {
    swift_enumerateAllMetadataSections(addImage, context);
    // A program with the runtime linked in registers its sections with its own copy only.
    cleak_reflection_add_images_of_executable(context);
  }
  return context;
}
