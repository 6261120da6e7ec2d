#define _GNU_SOURCE
#include "SwiftRuntimeFacts.h"
#include "ELFBuildID.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// What the agent needs to know before it trusts its layouts: which Swift runtime this process
// runs on, and which one the agent was linked against. The loaded runtime is read from memory
// (its program headers and notes as mapped), the agent's own from its file on disk, both by the
// build-id reader of `CELFBuildID`.

static const char sharedRuntimeName[] = "libswiftCore.so";

/// One loaded ELF image, as `dl_iterate_phdr` describes it.
typedef struct {
  ElfW(Addr) base;
  const char *name;
  const ElfW(Phdr) *headers;
  ElfW(Half) headerCount;
  bool found;
} LoadedImage;

static int takeFirstImage(struct dl_phdr_info *info, size_t size, void *context) {
  (void)size;
  LoadedImage *image = context;
  *image = (LoadedImage){info->dlpi_addr, info->dlpi_name, info->dlpi_phdr, info->dlpi_phnum, true};
  return 1;
}

typedef struct {
  uintptr_t address;
  LoadedImage image;
} ImageSearch;

static int takeImageContaining(struct dl_phdr_info *info, size_t size, void *context) {
  (void)size;
  ImageSearch *search = context;
  for (ElfW(Half) index = 0; index < info->dlpi_phnum; index++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[index];
    if (header->p_type != PT_LOAD) continue;
    uintptr_t start = info->dlpi_addr + header->p_vaddr;
    if (search->address >= start && search->address < start + header->p_memsz) {
      search->image = (LoadedImage){info->dlpi_addr, info->dlpi_name, info->dlpi_phdr, info->dlpi_phnum, true};
      return 1;
    }
  }
  return 0;
}

/// The loaded image whose segments hold `address`.
static LoadedImage imageContaining(const void *address) {
  ImageSearch search = {.address = (uintptr_t)address};
  if (address != NULL) dl_iterate_phdr(takeImageContaining, &search);
  return search.image;
}

/// The image's dynamic section as mapped, or NULL.
static const ElfW(Dyn) *dynamicSection(LoadedImage image) {
  for (ElfW(Half) index = 0; index < image.headerCount; index++) {
    if (image.headers[index].p_type == PT_DYNAMIC) return (const ElfW(Dyn) *)(image.base + image.headers[index].p_vaddr);
  }
  return NULL;
}

/// The image's dynamic string table. The dynamic loader relocates the address in place on most
/// platforms and leaves it as the file has it on others, so an address below the image's base
/// is taken as not yet relocated.
static const char *dynamicStrings(LoadedImage image, const ElfW(Dyn) *dynamic) {
  for (const ElfW(Dyn) *entry = dynamic; entry->d_tag != DT_NULL; entry++) {
    if (entry->d_tag != DT_STRTAB) continue;
    ElfW(Addr) address = entry->d_un.d_ptr;
    return (const char *)(address < image.base ? address + image.base : address);
  }
  return NULL;
}

/// Whether the image names `library` among the libraries it needs.
static bool needsLibrary(LoadedImage image, const char *library) {
  const ElfW(Dyn) *dynamic = dynamicSection(image);
  const char *strings = dynamic ? dynamicStrings(image, dynamic) : NULL;
  if (strings == NULL) return false;
  for (const ElfW(Dyn) *entry = dynamic; entry->d_tag != DT_NULL; entry++) {
    if (entry->d_tag == DT_NEEDED && strcmp(strings + entry->d_un.d_val, library) == 0) return true;
  }
  return false;
}

/// The image's run path (`DT_RUNPATH`, else `DT_RPATH`), as its file spells it, or NULL.
static const char *runPath(LoadedImage image) {
  const ElfW(Dyn) *dynamic = dynamicSection(image);
  const char *strings = dynamic ? dynamicStrings(image, dynamic) : NULL;
  if (strings == NULL) return NULL;
  const char *oldStyle = NULL;
  for (const ElfW(Dyn) *entry = dynamic; entry->d_tag != DT_NULL; entry++) {
    if (entry->d_tag == DT_RUNPATH) return strings + entry->d_un.d_val;
    if (entry->d_tag == DT_RPATH) oldStyle = strings + entry->d_un.d_val;
  }
  return oldStyle;
}

/// Opens the ELF file at `path` for reading with libelf; NULL when it cannot.
static Elf *openELF(const char *path, int *descriptor) {
  if (elf_version(EV_CURRENT) == EV_NONE) return NULL;
  *descriptor = open(path, O_RDONLY | O_CLOEXEC);
  if (*descriptor < 0) return NULL;
  Elf *elf = elf_begin(*descriptor, ELF_C_READ_MMAP, NULL);
  if (elf == NULL || elf_kind(elf) != ELF_K_ELF) {
    if (elf) elf_end(elf);
    close(*descriptor);
    return NULL;
  }
  return elf;
}

/// Whether the ELF file at `path` has a section whose name starts with `prefix`.
static bool fileHasSectionNamed(const char *path, const char *prefix) {
  int descriptor = -1;
  Elf *elf = openELF(path, &descriptor);
  if (elf == NULL) return false;
  bool found = false;
  size_t namesIndex = 0;
  if (elf_getshdrstrndx(elf, &namesIndex) == 0) {
    for (Elf_Scn *section = elf_nextscn(elf, NULL); section != NULL && !found; section = elf_nextscn(elf, section)) {
      GElf_Shdr header;
      if (gelf_getshdr(section, &header) == NULL) continue;
      const char *name = elf_strptr(elf, namesIndex, header.sh_name);
      found = name != NULL && strncmp(name, prefix, strlen(prefix)) == 0;
    }
  }
  elf_end(elf);
  close(descriptor);
  return found;
}

/// The newest `_SwiftStdlibVersion` the runtime loaded from `path` exports a property
/// descriptor for (`$sSo19_SwiftStdlibVersionasE6v6_3_0ABvpZMV` is 6.3's).
static void newestStandardLibraryVersion(const char *path, int *major, int *minor) {
  *major = 0;
  *minor = 0;
  void *library = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
  if (library == NULL) return;
  for (int probedMajor = 9; probedMajor >= 5 && *major == 0; probedMajor--) {
    for (int probedMinor = 19; probedMinor >= 0; probedMinor--) {
      char version[32], symbol[96];
      snprintf(version, sizeof version, "v%d_%d_0", probedMajor, probedMinor);
      snprintf(symbol, sizeof symbol, "$sSo19_SwiftStdlibVersionasE%zu%sABvpZMV", strlen(version), version);
      if (dlsym(library, symbol) != NULL) {
        *major = probedMajor;
        *minor = probedMinor;
        break;
      }
    }
  }
  dlclose(library);
}

/// The first `directory/library` that exists among the directories of `searchPath` (colon
/// separated; `$ORIGIN` and `${ORIGIN}` stand for `origin`), malloc'd, or NULL.
static char *findInSearchPath(const char *searchPath, const char *origin, const char *library) {
  if (searchPath == NULL) return NULL;
  for (const char *start = searchPath; *start;) {
    const char *end = strchr(start, ':');
    size_t length = end ? (size_t)(end - start) : strlen(start);
    char directory[PATH_MAX];
    size_t written = 0;
    bool fits = true;
    for (size_t at = 0; at < length && fits;) {
      const char *piece = start + at;
      size_t pieceLength = 1;
      const char *replacement = NULL;
      if (strncmp(piece, "${ORIGIN}", 9) == 0 && at + 9 <= length) {
        pieceLength = 9;
        replacement = origin;
      } else if (strncmp(piece, "$ORIGIN", 7) == 0 && at + 7 <= length) {
        pieceLength = 7;
        replacement = origin;
      }
      size_t addedLength = replacement ? strlen(replacement) : 1;
      fits = written + addedLength < sizeof directory;
      if (fits) memcpy(directory + written, replacement ? replacement : piece, addedLength);
      written += fits ? addedLength : 0;
      at += pieceLength;
    }
    if (fits && written > 0) {
      directory[written] = 0;
      char candidate[PATH_MAX];
      if ((size_t)snprintf(candidate, sizeof candidate, "%s/%s", directory, library) < sizeof candidate
          && access(candidate, R_OK) == 0) {
        return strdup(candidate);
      }
    }
    if (end == NULL) break;
    start = end + 1;
  }
  return NULL;
}

/// The directory of the loaded image `image` (its file's real path's directory), malloc'd, or NULL.
static char *directoryOf(LoadedImage image) {
  if (image.name == NULL || *image.name == 0) return NULL;
  char *path = realpath(image.name, NULL);
  if (path == NULL) return NULL;
  char *slash = strrchr(path, '/');
  if (slash == NULL) {
    free(path);
    return NULL;
  }
  *(slash == path ? slash + 1 : slash) = 0;
  return path;
}

void cleak_agent_read_swift_runtime_facts(cleak_agent_swift_runtime_facts *facts) {
  memset(facts, 0, sizeof *facts);

  LoadedImage executable = {0};
  dl_iterate_phdr(takeFirstImage, &executable);
  facts->executableNeedsSharedRuntime = executable.found && needsLibrary(executable, sharedRuntimeName);
  if (!facts->executableNeedsSharedRuntime) facts->executableHasSwiftSections = fileHasSectionNamed("/proc/self/exe", "swift5_");

  LoadedImage runtime = imageContaining(dlsym(RTLD_DEFAULT, "swift_retain"));
  if (runtime.found && runtime.name != NULL && *runtime.name) {
    facts->loadedRuntimePath = strdup(runtime.name);
    facts->loadedRuntimeBuildIDLength = cleak_build_id_of_loaded_image(runtime.base, runtime.headers, runtime.headerCount,
                                                                       facts->loadedRuntimeBuildID, CLEAK_BUILD_ID_CAPACITY);
    newestStandardLibraryVersion(runtime.name, &facts->loadedRuntimeMajorVersion, &facts->loadedRuntimeMinorVersion);
  }

  LoadedImage agent = imageContaining((const void *)cleak_agent_read_swift_runtime_facts);
  char *origin = agent.found ? directoryOf(agent) : NULL;
  if (agent.found) facts->agentRuntimePath = findInSearchPath(runPath(agent), origin ? origin : ".", sharedRuntimeName);
  free(origin);
  if (facts->agentRuntimePath != NULL) {
    facts->agentRuntimeBuildIDLength =
        cleak_build_id_of_file(facts->agentRuntimePath, facts->agentRuntimeBuildID, CLEAK_BUILD_ID_CAPACITY);
  }
}

void cleak_agent_free_swift_runtime_facts(cleak_agent_swift_runtime_facts *facts) {
  free(facts->loadedRuntimePath);
  free(facts->agentRuntimePath);
  facts->loadedRuntimePath = NULL;
  facts->agentRuntimePath = NULL;
}
