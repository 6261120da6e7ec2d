#define _GNU_SOURCE
#include "CLeakRuntime.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

// What a memory image needs of its images' files, which its memory does not hold: section headers
// (where the reflection metadata lies) and symbol tables. Read with libelf.

/// The ELF file at `path`, opened for reading, or NULL (then `*descriptor` is -1).
static Elf *openFile(const char *path, int *descriptor) {
  *descriptor = open(path, O_RDONLY | O_CLOEXEC);
  if (*descriptor < 0) return NULL;
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(*descriptor, ELF_C_READ_MMAP, NULL);
  if (elf == NULL || elf_kind(elf) != ELF_K_ELF) {
    if (elf != NULL) elf_end(elf);
    close(*descriptor);
    *descriptor = -1;
    return NULL;
  }
  return elf;
}

static void closeFile(Elf *elf, int descriptor) {
  elf_end(elf);
  close(descriptor);
}

bool cleak_elf_load_bias(const char *path, uintptr_t firstMappingStart, uintptr_t *bias) {
  int descriptor;
  Elf *elf = openFile(path, &descriptor);
  if (elf == NULL) return false;
  size_t count = 0;
  bool found = false;
  if (elf_getphdrnum(elf, &count) == 0) {
    for (size_t index = 0; index < count && !found; index++) {
      GElf_Phdr header;
      if (gelf_getphdr(elf, (int)index, &header) == NULL || header.p_type != PT_LOAD) continue;
      // The first loadable segment is mapped from the page that holds its file offset.
      uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
      *bias = firstMappingStart - ((uintptr_t)header.p_vaddr & ~(page - 1));
      found = true;
    }
  }
  closeFile(elf, descriptor);
  return found;
}

bool cleak_elf_reflection_sections(const char *path, uintptr_t bias, cleak_reflection_sections *sections) {
  memset(sections, 0, sizeof *sections);
  int descriptor;
  Elf *elf = openFile(path, &descriptor);
  if (elf == NULL) return false;
  size_t names;
  bool any = false;
  if (elf_getshdrstrndx(elf, &names) == 0) {
    for (Elf_Scn *section = elf_nextscn(elf, NULL); section != NULL; section = elf_nextscn(elf, section)) {
      GElf_Shdr header;
      if (gelf_getshdr(section, &header) == NULL || header.sh_addr == 0) continue;
      const char *name = elf_strptr(elf, names, header.sh_name);
      if (name == NULL || strncmp(name, "swift5_", 7) != 0) continue;
      cleak_memory_range range = {(uintptr_t)header.sh_addr + bias, (uintptr_t)(header.sh_addr + header.sh_size) + bias};
      const char *kind = name + 7;
      if (strcmp(kind, "fieldmd") == 0) sections->fieldmd = range;
      else if (strcmp(kind, "assocty") == 0) sections->assocty = range;
      else if (strcmp(kind, "builtin") == 0) sections->builtin = range;
      else if (strcmp(kind, "capture") == 0) sections->capture = range;
      else if (strcmp(kind, "typeref") == 0) sections->typeref = range;
      else if (strcmp(kind, "reflstr") == 0) sections->reflstr = range;
      else continue;
      any = true;
    }
  }
  closeFile(elf, descriptor);
  return any;
}

int cleak_elf_for_each_symbol(const char *path, uintptr_t bias, bool fullTableOnly,
                              void (*visit)(const char *name, uintptr_t address, uintptr_t size, void *context), void *context) {
  int descriptor;
  Elf *elf = openFile(path, &descriptor);
  if (elf == NULL) return 0;
  int tables = 0;
  for (Elf_Scn *section = elf_nextscn(elf, NULL); section != NULL; section = elf_nextscn(elf, section)) {
    GElf_Shdr header;
    if (gelf_getshdr(section, &header) == NULL) continue;
    if (header.sh_type != SHT_SYMTAB && (fullTableOnly || header.sh_type != SHT_DYNSYM)) continue;
    Elf_Data *data = elf_getdata(section, NULL);
    if (data == NULL || header.sh_entsize == 0) continue;
    tables += 1;
    size_t count = header.sh_size / header.sh_entsize;
    for (size_t index = 0; index < count; index++) {
      GElf_Sym symbol;
      if (gelf_getsym(data, (int)index, &symbol) == NULL || symbol.st_shndx == SHN_UNDEF || symbol.st_value == 0) continue;
      int type = GELF_ST_TYPE(symbol.st_info);
      if (type != STT_OBJECT && type != STT_FUNC && type != STT_TLS && type != STT_NOTYPE) continue;
      const char *name = elf_strptr(elf, header.sh_link, symbol.st_name);
      if (name == NULL || name[0] == 0) continue;
      visit(name, (uintptr_t)symbol.st_value + (type == STT_TLS ? 0 : bias), (uintptr_t)symbol.st_size, context);
    }
  }
  closeFile(elf, descriptor);
  return tables;
}

bool cleak_elf_writable_extent(const char *path, uintptr_t bias, cleak_memory_range *extent) {
  int descriptor;
  Elf *elf = openFile(path, &descriptor);
  if (elf == NULL) return false;
  size_t count = 0;
  extent->start = UINTPTR_MAX;
  extent->end = 0;
  if (elf_getphdrnum(elf, &count) == 0) {
    for (size_t index = 0; index < count; index++) {
      GElf_Phdr header;
      if (gelf_getphdr(elf, (int)index, &header) == NULL || header.p_type != PT_LOAD || (header.p_flags & PF_W) == 0) continue;
      uintptr_t start = (uintptr_t)header.p_vaddr + bias, end = (uintptr_t)(header.p_vaddr + header.p_memsz) + bias;
      if (start < extent->start) extent->start = start;
      if (end > extent->end) extent->end = end;
    }
  }
  closeFile(elf, descriptor);
  return extent->end > extent->start;
}

size_t cleak_elf_tls_block_size(const char *path) {
  int descriptor;
  Elf *elf = openFile(path, &descriptor);
  if (elf == NULL) return 0;
  size_t count = 0, size = 0;
  if (elf_getphdrnum(elf, &count) == 0) {
    for (size_t index = 0; index < count; index++) {
      GElf_Phdr header;
      if (gelf_getphdr(elf, (int)index, &header) == NULL || header.p_type != PT_TLS) continue;
      size_t align = header.p_align > 1 ? (size_t)header.p_align : 1;
      size = ((size_t)header.p_memsz + align - 1) / align * align + align;
    }
  }
  closeFile(elf, descriptor);
  return size;
}
