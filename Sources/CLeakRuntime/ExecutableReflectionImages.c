#define _GNU_SOURCE
#include "CLeakRuntime.h"
#include "ExecutableSymbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

// The reflection sections of a program that runs on a runtime of its own (`-static-stdlib`):
// its images registered with that runtime, not with the shared one the agent's reflection
// context enumerates, so they are read from the executable's section headers.

// `swift_reflection_addReflectionInfo`'s argument (`MemoryReaderInterface.h`, current ABI), as
// RemoteMirror.c declares it.
typedef struct { void *begin; void *end; } executable_section_t;
typedef struct { executable_section_t section; uint64_t offset; } executable_section_pair_t;
typedef struct {
  executable_section_pair_t field, associatedTypes, builtinTypes, capture, typeReferences, reflectionStrings;
  uint64_t localStartAddress, remoteStartAddress;
} executable_reflection_info_t;
extern void swift_reflection_addReflectionInfo(SwiftReflectionContextRef, executable_reflection_info_t);

static int takeMainProgramStart(struct dl_phdr_info *info, size_t size, void *context) {
  (void)size;
  uintptr_t low = UINTPTR_MAX;
  for (int index = 0; index < info->dlpi_phnum; index++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[index];
    if (header->p_type == PT_LOAD && header->p_vaddr < low) low = header->p_vaddr;
  }
  *(uintptr_t *)context = info->dlpi_addr + (low == UINTPTR_MAX ? 0 : low);
  return 1;
}

bool cleak_reflection_add_images_of_executable(SwiftReflectionContextRef context) {
  if (!cleak_executable_runtime_is_hooked() || elf_version(EV_CURRENT) == EV_NONE) return false;
  int descriptor = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (descriptor < 0) return false;
  Elf *elf = elf_begin(descriptor, ELF_C_READ_MMAP, NULL);
  size_t namesIndex = 0;
  uintptr_t bias = cleak_executable_load_bias();
  executable_reflection_info_t info;
  memset(&info, 0, sizeof info);
  struct {
    const char *name;
    executable_section_pair_t *pair;
  } wanted[] = {{"swift5_fieldmd", &info.field},         {"swift5_assocty", &info.associatedTypes},
                {"swift5_builtin", &info.builtinTypes},  {"swift5_capture", &info.capture},
                {"swift5_typeref", &info.typeReferences}, {"swift5_reflstr", &info.reflectionStrings}};
  bool found = false;
  if (elf != NULL && elf_getshdrstrndx(elf, &namesIndex) == 0) {
    for (Elf_Scn *section = elf_nextscn(elf, NULL); section != NULL; section = elf_nextscn(elf, section)) {
      GElf_Shdr header;
      if (gelf_getshdr(section, &header) == NULL || header.sh_addr == 0) continue;
      const char *name = elf_strptr(elf, namesIndex, header.sh_name);
      for (size_t index = 0; name != NULL && index < sizeof wanted / sizeof wanted[0]; index++) {
        if (strcmp(name, wanted[index].name) != 0) continue;
        wanted[index].pair->section.begin = (void *)(bias + header.sh_addr);
        wanted[index].pair->section.end = (void *)(bias + header.sh_addr + header.sh_size);
        found = true;
      }
    }
  }
  if (elf != NULL) elf_end(elf);
  close(descriptor);
  if (!found) return false;
  uintptr_t start = 0;
  dl_iterate_phdr(takeMainProgramStart, &start);
  info.localStartAddress = start;
  info.remoteStartAddress = start;
  swift_reflection_addReflectionInfo(context, info);
  return true;
}
