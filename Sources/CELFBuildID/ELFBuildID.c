#define _GNU_SOURCE
#include "ELFBuildID.h"

#include <elf.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/// The most bytes of program headers, and of one note segment, read from a file: more is not an
/// image of this toolchain's (a build id's segment is a few dozen bytes).
enum { headersLimit = 4 << 20, notesLimit = 1 << 20 };

/// `value` rounded up to a multiple of `alignment`, a power of two.
static size_t alignedUp(size_t value, size_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

/// The 32-bit word at `bytes`, which need not be aligned (notes handed in by a caller may not be).
static uint32_t word(const unsigned char *bytes) {
  uint32_t value;
  memcpy(&value, bytes, sizeof value);
  return value;
}

size_t cleak_build_id_in_notes(const void *notes, size_t size, size_t alignment, unsigned char *buildID, size_t capacity) {
  // As readelf reads a note segment: 8-byte entries only where the segment says 8.
  if (alignment <= 4) alignment = 4;
  else if (alignment != 8) return 0;
  const unsigned char *bytes = notes;
  enum { headerSize = 3 * sizeof(uint32_t) };  // n_namesz, n_descsz, n_type: 4 bytes each in both classes
  size_t offset = 0;
  while (offset + headerSize <= size) {
    uint32_t nameSize = word(bytes + offset), descriptorSize = word(bytes + offset + 4), type = word(bytes + offset + 8);
    size_t name = offset + headerSize;
    size_t descriptor = alignedUp(name + nameSize, alignment);
    if (descriptor + descriptorSize > size) return 0;
    if (type == NT_GNU_BUILD_ID && nameSize == 4 && memcmp(bytes + name, "GNU", 4) == 0) {
      size_t length = descriptorSize < capacity ? descriptorSize : capacity;
      memcpy(buildID, bytes + descriptor, length);
      return length;
    }
    offset = alignedUp(descriptor + descriptorSize, alignment);
  }
  return 0;
}

size_t cleak_build_id_of_loaded_image(uintptr_t base, const ElfW(Phdr) *headers, size_t headerCount, unsigned char *buildID,
                                      size_t capacity) {
  for (size_t index = 0; index < headerCount; index++) {
    const ElfW(Phdr) *header = &headers[index];
    if (header->p_type != PT_NOTE) continue;
    size_t length = cleak_build_id_in_notes((const void *)(base + header->p_vaddr), header->p_memsz, header->p_align, buildID, capacity);
    if (length > 0) return length;
  }
  return 0;
}

/// Reads exactly `count` bytes at `offset` of `descriptor` into `buffer`.
static bool readAt(int descriptor, void *buffer, size_t count, uint64_t offset) {
  size_t done = 0;
  while (done < count) {
    ssize_t read = pread(descriptor, (char *)buffer + done, count - done, (off_t)(offset + done));
    if (read <= 0) return false;
    done += (size_t)read;
  }
  return true;
}

/// The number of program headers `header` announces: `e_phnum`, or, when that is `PN_XNUM`, the
/// `sh_info` of section header 0 (where a file with more than 65,534 keeps the count).
static size_t programHeaderCount(int descriptor, const ElfW(Ehdr) *header) {
  if (header->e_phnum != PN_XNUM) return header->e_phnum;
  ElfW(Shdr) first;
  if (header->e_shoff == 0 || !readAt(descriptor, &first, sizeof first, header->e_shoff)) return 0;
  return first.sh_info;
}

/// The build id in the note segments of the open ELF file `descriptor`.
static size_t buildIDOfOpenFile(int descriptor, unsigned char *buildID, size_t capacity) {
  ElfW(Ehdr) header;
  if (!readAt(descriptor, &header, sizeof header, 0) || memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) return 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  const unsigned char byteOrder = ELFDATA2LSB;
#else
  const unsigned char byteOrder = ELFDATA2MSB;
#endif
  const unsigned char fileClass = sizeof(ElfW(Addr)) == 8 ? ELFCLASS64 : ELFCLASS32;
  if (header.e_ident[EI_CLASS] != fileClass || header.e_ident[EI_DATA] != byteOrder) return 0;
  size_t count = programHeaderCount(descriptor, &header), entrySize = header.e_phentsize;
  if (count == 0 || entrySize < sizeof(ElfW(Phdr)) || count > headersLimit / entrySize) return 0;
  unsigned char *headers = malloc(count * entrySize);
  if (headers == NULL) return 0;
  size_t length = 0;
  if (readAt(descriptor, headers, count * entrySize, header.e_phoff)) {
    for (size_t index = 0; index < count && length == 0; index++) {
      ElfW(Phdr) segment;
      memcpy(&segment, headers + index * entrySize, sizeof segment);
      if (segment.p_type != PT_NOTE || segment.p_filesz == 0 || segment.p_filesz > notesLimit) continue;
      unsigned char *notes = malloc(segment.p_filesz);
      if (notes == NULL) break;
      if (readAt(descriptor, notes, segment.p_filesz, segment.p_offset)) {
        length = cleak_build_id_in_notes(notes, segment.p_filesz, segment.p_align, buildID, capacity);
      }
      free(notes);
    }
  }
  free(headers);
  return length;
}

size_t cleak_build_id_of_file(const char *path, unsigned char *buildID, size_t capacity) {
  int descriptor = open(path, O_RDONLY | O_CLOEXEC);
  if (descriptor < 0) return 0;
  size_t length = buildIDOfOpenFile(descriptor, buildID, capacity);
  close(descriptor);
  return length;
}
