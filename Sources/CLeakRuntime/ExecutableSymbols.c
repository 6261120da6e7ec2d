#define _GNU_SOURCE
#include "CLeakRuntime.h"
#include "ExecutableSymbols.h"

#include <link.h>
#include <string.h>

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

bool cleak_executable_symbols_each(void (*visit)(const char *name, uintptr_t address, uintptr_t size, void *context),
                                   void *context) {
  return cleak_elf_for_each_symbol("/proc/self/exe", cleak_executable_load_bias(), true, visit, context) > 0;
}

typedef struct {
  const char *const *names;
  size_t count;
  uintptr_t *addresses;
} SymbolSearch;

static void takeWanted(const char *name, uintptr_t address, uintptr_t size, void *context) {
  (void)size;
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
