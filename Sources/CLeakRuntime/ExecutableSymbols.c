#define _GNU_SOURCE
#include "ExecutableSymbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

// The main executable's symbol table, read from its file: the one place where the functions of
// a Swift runtime linked into the executable (`-static-stdlib`) are named, since the linker
// exports none of them.

static int takeMainProgram(struct dl_phdr_info *info, size_t size, void *context) {
  (void)size;
  *(uintptr_t *)context = info->dlpi_addr;
  return 1;  // the main program comes first
}

uintptr_t cleak_executable_load_bias(void) {
  uintptr_t bias = 0;
  dl_iterate_phdr(takeMainProgram, &bias);
  return bias;
}

bool cleak_executable_symbols_each(void (*visit)(const char *name, uintptr_t address, void *context), void *context) {
  if (elf_version(EV_CURRENT) == EV_NONE) return false;
  int descriptor = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (descriptor < 0) return false;
  Elf *elf = elf_begin(descriptor, ELF_C_READ_MMAP, NULL);
  bool hasTable = false;
  uintptr_t bias = cleak_executable_load_bias();
  for (Elf_Scn *section = elf ? elf_nextscn(elf, NULL) : NULL; section != NULL; section = elf_nextscn(elf, section)) {
    GElf_Shdr header;
    if (gelf_getshdr(section, &header) == NULL || header.sh_type != SHT_SYMTAB || header.sh_entsize == 0) continue;
    Elf_Data *data = elf_getdata(section, NULL);
    if (data == NULL) continue;
    hasTable = true;
    size_t symbols = header.sh_size / header.sh_entsize;
    for (size_t index = 0; index < symbols; index++) {
      GElf_Sym symbol;
      if (gelf_getsym(data, (int)index, &symbol) == NULL || symbol.st_shndx == SHN_UNDEF || symbol.st_value == 0) continue;
      const char *name = elf_strptr(elf, header.sh_link, symbol.st_name);
      if (name != NULL && *name != 0) visit(name, bias + (uintptr_t)symbol.st_value, context);
    }
  }
  if (elf != NULL) elf_end(elf);
  close(descriptor);
  return hasTable;
}

typedef struct {
  const char *const *names;
  size_t count;
  uintptr_t *addresses;
} SymbolSearch;

static void takeWanted(const char *name, uintptr_t address, void *context) {
  SymbolSearch *search = context;
  for (size_t wanted = 0; wanted < search->count; wanted++) {
    if (search->addresses[wanted] == 0 && strcmp(name, search->names[wanted]) == 0) search->addresses[wanted] = address;
  }
}

bool cleak_executable_symbols_find(const char *const *names, size_t count, uintptr_t *addresses) {
  memset(addresses, 0, sizeof(uintptr_t) * count);
  SymbolSearch search = {names, count, addresses};
  return cleak_executable_symbols_each(takeWanted, &search);
}
