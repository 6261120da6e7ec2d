#define _GNU_SOURCE
#include "CLeakRuntime.h"
#include "ForkSafety.h"
#include "SymbolIndex.h"
#include "FunctionIndex.h"
#include "UnitIndex.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Dwfl *session = NULL;
static char *debuginfoPath = NULL;

static int exists(const char *path) {
  return access(path, R_OK) == 0;
}

/// Whether a separate debug file for the module is on this machine, where libdwfl's standard
/// search looks: by build id under /usr/lib/debug/.build-id, or by the file's debug link beside
/// it, in its .debug directory, or under /usr/lib/debug.
static int hasLocalDebugFile(Dwfl_Module *module, const char *fileName, const char *debugLink) {
  char path[4096];
  const unsigned char *bits = NULL;
  GElf_Addr vaddr = 0;
  int length = dwfl_module_build_id(module, &bits, &vaddr);
  if (length > 1 && length < 256) {
    int used = snprintf(path, sizeof path, "/usr/lib/debug/.build-id/%02x/", bits[0]);
    for (int index = 1; index < length && used + 3 < (int)sizeof path; index++) used += snprintf(path + used, sizeof path - used, "%02x", bits[index]);
    if (used + 7 < (int)sizeof path && (strcpy(path + used, ".debug"), exists(path))) return 1;
  }
  if (fileName == NULL) return 0;
  const char *slash = strrchr(fileName, '/');
  int directoryLength = slash == NULL ? 0 : (int)(slash - fileName);
  const char *base = slash == NULL ? fileName : slash + 1;
  char defaultLink[1024];
  if (debugLink == NULL) {
    if (snprintf(defaultLink, sizeof defaultLink, "%s.debug", base) >= (int)sizeof defaultLink) return 0;
    debugLink = defaultLink;
  }
  static const char *const formats[] = {"%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s"};
  for (size_t index = 0; index < sizeof formats / sizeof formats[0]; index++) {
    int used = snprintf(path, sizeof path, formats[index], directoryLength, fileName, debugLink);
    if (used > 0 && used < (int)sizeof path && strcmp(path, fileName) != 0 && exists(path)) return 1;
  }
  return 0;
}

/// libdwfl's standard search for a separate debug file, on this machine only. Where it finds no
/// local file, the standard search asks debuginfod, which loads libcurl, GnuTLS and about thirty
/// other libraries into the process (several milliseconds at every exit capture, and a
/// network request when DEBUGINFOD_URLS is set): not something to do inside someone's program.
static int findLocalDebuginfo(Dwfl_Module *module, void **userData, const char *moduleName, Dwarf_Addr base,
                              const char *fileName, const char *debugLink, GElf_Word debugLinkCRC,
                              char **debugFileName) {
  if (!hasLocalDebugFile(module, fileName, debugLink)) return -1;
  return dwfl_standard_find_debuginfo(module, userData, moduleName, base, fileName, debugLink, debugLinkCRC, debugFileName);
}

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = findLocalDebuginfo,
    .debuginfo_path = &debuginfoPath,
};

static Dwfl *currentSession(void) {
  if (session != NULL) return session;
  session = dwfl_begin(&callbacks);
  if (session == NULL) return NULL;
  if (__builtin_expect(cleak_memory_image_active, 0)) {
    // The images of the memory image, from their files where they were loaded.
    size_t count = 0;
    const cleak_image_range *images = cleak_memory_image_loaded_images(&count);
    dwfl_report_begin(session);
    for (size_t index = 0; index < count; index++) {
      if (images[index].path == NULL) continue;
      dwfl_report_elf(session, images[index].path, images[index].path, -1, images[index].bias, false);
    }
    if (dwfl_report_end(session, NULL, NULL) != 0) {
      dwfl_end(session);
      session = NULL;
    }
    return session;
  }
  if (dwfl_linux_proc_report(session, getpid()) != 0 || dwfl_report_end(session, NULL, NULL) != 0) {
    dwfl_end(session);
    session = NULL;
  }
  return session;
}

/// Whether `file` is the compiler's pseudo-file, which DWARF may spell with a directory
/// (`/<compiler-generated>`).
static int isCompilerGenerated(const char *file) {
  static const char name[] = "<compiler-generated>";
  size_t length = strlen(file), nameLength = sizeof name - 1;
  return length >= nameLength && strcmp(file + length - nameLength, name) == 0;
}

/// File and line of `pc` from the compile unit that holds it (UnitIndex.h): swiftc and clang emit
/// no .debug_aranges, so libdw's own address lookup finds no unit for Swift code.
static int lineFromUnits(Dwfl_Module *module, Dwarf_Addr pc, const char **file, int *line, int *column) {
  Dwarf_Addr bias = 0;
  Dwarf *dwarf = dwfl_module_getdwarf(module, &bias);
  if (dwarf == NULL) return 0;
  Dwarf_Addr address = pc - bias;
  Dwarf_Die unit;
  if (!cleak_unit_index_lookup(dwarf, address, &unit)) return 0;
  Dwarf_Line *found = dwarf_getsrc_die(&unit, address);
  if (found == NULL) return 0;
  *file = dwarf_linesrc(found, NULL, NULL);
  dwarf_lineno(found, line);
  dwarf_linecol(found, column);
  return *file != NULL;
}

/// For code inlined from compiler-generated functions (an allocating initializer, say), the line
/// table says line 0. The place worth reporting is then the nearest earlier row of the same
/// function that has a real line: the source line whose evaluation the inlined code belongs to.
static int nearestEarlierLine(Dwfl_Module *module, Dwarf_Addr pc, const char **file, int *line, int *column) {
  cleak_symbol symbol;
  if (!cleak_symbol_index_lookup(module, pc, &symbol)) return 0;
  Dwarf_Addr bias = 0;
  Dwarf *dwarf = dwfl_module_getdwarf(module, &bias);
  if (dwarf == NULL) return 0;
  Dwarf_Addr address = pc - bias, functionStart = symbol.start - bias;
  Dwarf_Die unit;
  if (!cleak_unit_index_lookup(dwarf, address, &unit)) return 0;
  Dwarf_Lines *lines = NULL;
  size_t count = 0;
  if (dwarf_getsrclines(&unit, &lines, &count) != 0) return 0;
  // The latest real row at or before the address; failing that (a function's entry, such as
  // a closure's), the earliest real row after it, within the same function.
  Dwarf_Addr functionEnd = functionStart + (symbol.size ? symbol.size : 1);
  Dwarf_Addr before = 0, after = 0;
  Dwarf_Line *beforeRow = NULL, *afterRow = NULL;
  for (size_t index = 0; index < count; index++) {
    Dwarf_Line *row = dwarf_onesrcline(lines, index);
    Dwarf_Addr rowAddress = 0;
    int rowLine = 0;
    if (row == NULL || dwarf_lineaddr(row, &rowAddress) != 0 || rowAddress < functionStart || rowAddress >= functionEnd) continue;
    if (dwarf_lineno(row, &rowLine) != 0 || rowLine == 0) continue;
    const char *rowFile = dwarf_linesrc(row, NULL, NULL);
    if (rowFile == NULL || isCompilerGenerated(rowFile)) continue;
    if (rowAddress <= address && (beforeRow == NULL || rowAddress >= before)) {
      before = rowAddress;
      beforeRow = row;
    } else if (rowAddress > address && (afterRow == NULL || rowAddress < after)) {
      after = rowAddress;
      afterRow = row;
    }
  }
  // The row at the function's entry is its prologue (the declaration line): the code after
  // the address says more about what was being evaluated.
  Dwarf_Line *chosen = beforeRow != NULL && !(before == functionStart && afterRow != NULL) ? beforeRow : afterRow;
  if (chosen == NULL) return 0;
  *file = dwarf_linesrc(chosen, NULL, NULL);
  dwarf_lineno(chosen, line);
  dwarf_linecol(chosen, column);
  return 1;
}

/// Whether the module's DWARF, if any, is in its own file. A system library's lives in a
/// separate, compressed file of a debug package (`/usr/lib/debug/.build-id/…`): the frames there
/// are never a program's own lines, and inflating libc's took longer than the rest of a small
/// capture. Such a module's frames are named (its symbol table is not compressed) but given no
/// line. Asked after the module's symbol table was read, which is when libdwfl finds that file.
static int keepsItsDebugInfo(Dwfl_Module *module) {
  const char *mainFile = NULL, *debugFile = NULL;
  dwfl_module_info(module, NULL, NULL, NULL, NULL, NULL, &mainFile, &debugFile);
  return debugFile == NULL || mainFile == NULL || strcmp(debugFile, mainFile) == 0;
}

static char *copy(const char *text) {
  return text == NULL ? NULL : strdup(text);
}

enum { maximumInlineDepth = 32 };

/// The functions inlined at `pc` (`DW_TAG_inlined_subroutine` DIEs), innermost first, found by
/// going down from the function that holds `pc` (FunctionIndex.h: libdw's `dwarf_getscopes` does
/// not look inside the module DIE where swiftc puts functions) through the inlined functions and
/// lexical blocks whose code holds it. The unit comes from the unit index (swiftc emits no
/// .debug_aranges).
/// Returns how many `chain` holds (at most `maximumInlineDepth`), 0 for code that is not inlined.
static int inlineChain(Dwfl_Module *module, Dwarf_Addr pc, Dwarf_Die *unit, Dwarf_Die chain[maximumInlineDepth]) {
  Dwarf_Addr bias = 0;
  Dwarf *dwarf = dwfl_module_getdwarf(module, &bias);
  Dwarf_Addr address = pc - bias;
  Dwarf_Die scope;
  if (dwarf == NULL || !cleak_unit_index_lookup(dwarf, address, unit) || !cleak_function_index_lookup(unit, address, &scope)) {
    return 0;
  }
  int count = 0;  // outermost first while going down
  for (int found = 1; found && count < maximumInlineDepth;) {
    found = 0;
    Dwarf_Die child;
    if (dwarf_child(&scope, &child) != 0) break;
    do {
      int tag = dwarf_tag(&child);
      if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) && dwarf_haspc(&child, address) == 1) {
        if (tag == DW_TAG_inlined_subroutine) chain[count++] = child;
        scope = child;
        found = 1;
        break;
      }
    } while (dwarf_siblingof(&child, &child) == 0);
  }
  for (int low = 0, high = count - 1; low < high; low++, high--) {
    Dwarf_Die swapped = chain[low];
    chain[low] = chain[high];
    chain[high] = swapped;
  }
  return count;
}

/// The linkage (mangled) name of a function's DIE, through its abstract origin and declaration;
/// its plain name when it has none (C code).
static const char *functionName(Dwarf_Die *function) {
  Dwarf_Attribute attribute;
  const char *name = dwarf_formstring(dwarf_attr_integrate(function, DW_AT_linkage_name, &attribute));
  if (name == NULL) name = dwarf_formstring(dwarf_attr_integrate(function, DW_AT_MIPS_linkage_name, &attribute));
  if (name == NULL) name = dwarf_formstring(dwarf_attr_integrate(function, DW_AT_name, &attribute));
  return name;
}

/// The source location of the call that `inlined` was inlined at: its `DW_AT_call_file`,
/// `DW_AT_call_line` and `DW_AT_call_column` (0 when absent), the file from the unit's table.
static void callSite(Dwarf_Die *inlined, Dwarf_Files *files, const char **file, int *line, int *column) {
  Dwarf_Attribute attribute;
  Dwarf_Word value = 0;
  *file = NULL;
  *line = 0;
  *column = 0;
  if (files != NULL && dwarf_formudata(dwarf_attr(inlined, DW_AT_call_file, &attribute), &value) == 0) {
    *file = dwarf_filesrc(files, value, NULL, NULL);
  }
  if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_line, &attribute), &value) == 0) *line = (int)value;
  if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_column, &attribute), &value) == 0) *column = (int)value;
}

static void setFrame(cleak_symbolized_frame *frame, const char *symbol, const char *file, int line, int column, int inlined) {
  frame->symbol = copy(symbol);
  frame->file = copy(file);
  frame->line = line;
  frame->column = column;
  frame->inlined = inlined;
}

/// The frames of `pc` (see `cleak_symbolize_frames`); callers hold the lock.
static int symbolizeFrames(uintptr_t pc, cleak_symbolized_frame *frames, int capacity, int withLines) {
  Dwfl *dwfl = currentSession();
  Dwfl_Module *module = dwfl == NULL ? NULL : dwfl_addrmodule(dwfl, (Dwarf_Addr)pc);
  if (module == NULL) return 0;
  cleak_symbol found;
  const char *name = cleak_symbol_index_lookup(module, (GElf_Addr)pc, &found) ? found.name : NULL;
  if (!withLines || !keepsItsDebugInfo(module)) {  // the name only
    setFrame(&frames[0], name, NULL, 0, 0, 0);
    return name != NULL;
  }
  // A partial-apply forwarder ("…TA") has no source of its own: use the function it forwards to.
  Dwarf_Addr lookup = (Dwarf_Addr)pc;
  size_t nameLength = name == NULL ? 0 : strlen(name);
  GElf_Addr forwardedTo = 0;
  if (nameLength > 2 && strcmp(name + nameLength - 2, "TA") == 0 && cleak_symbol_index_find_function(module, name, nameLength - 2, &forwardedTo)) {
    lookup = forwardedTo;
  }
  const char *source = NULL;
  int line = 0, column = 0;
  Dwfl_Line *row = dwfl_module_getsrc(module, lookup);
  if (row != NULL) source = dwfl_lineinfo(row, NULL, &line, &column, NULL, NULL);
  if (source == NULL || isCompilerGenerated(source)) lineFromUnits(module, lookup, &source, &line, &column);
  // Each inlined function is a frame of its own, with the line in it; the function it was
  // inlined into gets the line of the call.
  Dwarf_Die unit;
  Dwarf_Die chain[maximumInlineDepth];
  int chainCount = inlineChain(module, lookup, &unit, chain);
  Dwarf_Files *files = NULL;
  if (chainCount > 0 && dwarf_getsrcfiles(&unit, &files, NULL) != 0) files = NULL;
  int written = 0;
  for (int index = 0; index < chainCount; index++) {
    Dwarf_Die *inlined = &chain[index];
    if (written == 0 && (source == NULL || line == 0 || isCompilerGenerated(source))) {
      // Code of a compiler-made function (an allocating initializer) has line 0: the function's
      // declaration says where it is.
      const char *declared = dwarf_decl_file(inlined);
      int declaredLine = 0;
      if (declared != NULL && dwarf_decl_line(inlined, &declaredLine) == 0) {
        source = declared;
        line = declaredLine;
        column = 0;
      }
    }
    if (written < capacity - 1) setFrame(&frames[written++], functionName(inlined), source, line, column, 1);
    callSite(inlined, files, &source, &line, &column);
  }
  if (written == 0 && (source == NULL || line == 0 || isCompilerGenerated(source))) {
    nearestEarlierLine(module, lookup, &source, &line, &column);
  }
  setFrame(&frames[written++], name, source, line, column, 0);
  return name != NULL || source != NULL || written > 1 ? written : 0;
}

int cleak_symbolize_frames(uintptr_t pc, cleak_symbolized_frame *frames, int capacity) {
  if (capacity <= 0) return 0;
  memset(frames, 0, sizeof(cleak_symbolized_frame) * (size_t)capacity);
  pthread_mutex_lock(&lock);
  int count = symbolizeFrames(pc, frames, capacity, 1);
  pthread_mutex_unlock(&lock);
  if (count == 0) cleak_symbolized_frames_free(frames, capacity);
  return count;
}

void cleak_symbolized_frames_free(cleak_symbolized_frame *frames, int count) {
  for (int index = 0; index < count; index++) {
    free(frames[index].symbol);
    free(frames[index].file);
    frames[index].symbol = NULL;
    frames[index].file = NULL;
  }
}

int cleak_symbolize(uintptr_t pc, char **symbol, char **file, int *line, int *column) {
  // The function the address is in: the outermost of its frames, whose line is that of the
  // call an inlined function's code came from.
  enum { capacity = 32 };
  cleak_symbolized_frame frames[capacity] = {0};
  pthread_mutex_lock(&lock);
  int count = symbolizeFrames(pc, frames, capacity, file != NULL);
  pthread_mutex_unlock(&lock);
  cleak_symbolized_frame outermost = count > 0 ? frames[count - 1] : (cleak_symbolized_frame){0};
  *symbol = outermost.symbol;
  if (file != NULL) *file = outermost.file; else free(outermost.file);
  *line = outermost.line;
  *column = outermost.column;
  if (count > 1) cleak_symbolized_frames_free(frames, count - 1);
  return *symbol != NULL || (file != NULL && *file != NULL);
}

size_t cleak_symbol_index_disagreements(uintptr_t start, uintptr_t end, uintptr_t step, size_t *checked) {
  size_t disagreements = 0;
  *checked = 0;
  pthread_mutex_lock(&lock);
  Dwfl *dwfl = currentSession();
  for (uintptr_t address = start; dwfl != NULL && step > 0 && address < end; address += step) {
    Dwfl_Module *module = dwfl_addrmodule(dwfl, (Dwarf_Addr)address);
    if (module == NULL) continue;
    *checked += 1;
    cleak_symbol indexed;
    int found = cleak_symbol_index_lookup(module, (GElf_Addr)address, &indexed);
    GElf_Off offset = 0;
    GElf_Sym symbol;
    const char *name = dwfl_module_addrinfo(module, (GElf_Addr)address, &offset, &symbol, NULL, NULL, NULL);
    if ((name != NULL) != (found != 0) || (name != NULL && (strcmp(name, indexed.name) != 0 || address - offset != indexed.start))) {
      disagreements += 1;
    }
  }
  pthread_mutex_unlock(&lock);
  return disagreements;
}

uintptr_t cleak_local_symbol(uintptr_t addressInImage, const char *name) {
  uintptr_t found = 0;
  pthread_mutex_lock(&lock);
  Dwfl *dwfl = currentSession();
  Dwfl_Module *module = dwfl == NULL ? NULL : dwfl_addrmodule(dwfl, (Dwarf_Addr)addressInImage);
  int count = module == NULL ? 0 : dwfl_module_getsymtab(module);
  for (int index = 1; index < count && found == 0; index++) {
    GElf_Sym entry;
    GElf_Addr address = 0;
    const char *candidate = dwfl_module_getsym_info(module, index, &entry, &address, NULL, NULL, NULL);
    if (candidate != NULL && GELF_ST_TYPE(entry.st_info) == STT_OBJECT && strcmp(candidate, name) == 0) found = address;
  }
  pthread_mutex_unlock(&lock);
  return found;
}

void cleak_symbolize_lock_for_fork(void) {
  pthread_mutex_lock(&lock);
}

void cleak_symbolize_unlock_after_fork(int inChild) {
  if (inChild) {
    pthread_mutex_init(&lock, NULL);
  } else {
    pthread_mutex_unlock(&lock);
  }
}

typedef struct {
  uintptr_t address;
  uintptr_t imageStart;  // the lowest loaded address of the image that holds `address`
} image_search_t;

static int findImage(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  image_search_t *search = data;
  uintptr_t lowest = UINTPTR_MAX;
  int holds = 0;
  for (int index = 0; index < info->dlpi_phnum; index++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[index];
    if (header->p_type != PT_LOAD) continue;
    uintptr_t start = info->dlpi_addr + header->p_vaddr;
    if (start < lowest) lowest = start;
    if (search->address >= start && search->address < start + header->p_memsz) holds = 1;
  }
  if (!holds) return 0;
  search->imageStart = lowest;
  return 1;
}

// The module of a data address. libdw knows a module by the file's mappings, and the part of
// .bss past the file's last page is an anonymous mapping: such an address is found through the
// image's program headers instead, and its module by where the image starts.
static Dwfl_Module *dataModule(Dwfl *dwfl, uintptr_t address) {
  Dwfl_Module *module = dwfl_addrmodule(dwfl, (Dwarf_Addr)address);
  if (module != NULL) return module;
  image_search_t search = {address, 0};
  if (__builtin_expect(cleak_memory_image_active, 0)) {
    const cleak_image_range *image = cleak_memory_image_loaded_image(address);
    return image == NULL ? NULL : dwfl_addrmodule(dwfl, (Dwarf_Addr)image->start);
  }
  dl_iterate_phdr(findImage, &search);
  return search.imageStart == 0 ? NULL : dwfl_addrmodule(dwfl, (Dwarf_Addr)search.imageStart);
}

int cleak_data_symbol(uintptr_t address, char **symbol, uintptr_t *offset) {
  *symbol = NULL;
  *offset = 0;
  pthread_mutex_lock(&lock);
  Dwfl *dwfl = currentSession();
  Dwfl_Module *module = dwfl == NULL ? NULL : dataModule(dwfl, address);
  if (module != NULL) {
    cleak_symbol found;
    if (cleak_symbol_index_lookup(module, (GElf_Addr)address, &found)) {
      *symbol = copy(found.name);
      *offset = (uintptr_t)(address - found.start);
    }
  }
  pthread_mutex_unlock(&lock);
  return *symbol != NULL;
}

typedef struct {
  uintptr_t address;
  uintptr_t imageStart;   // the lowest loaded address of the image whose block holds `address`
  uintptr_t blockOffset;  // the offset of `address` in that image's thread-local block
} thread_local_search_t;

static int findThreadLocalBlock(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  thread_local_search_t *search = data;
  if (info->dlpi_tls_data == NULL) return 0;  // no thread-local block, or not allocated yet
  uintptr_t block = (uintptr_t)info->dlpi_tls_data, lowest = UINTPTR_MAX, blockSize = 0;
  for (int index = 0; index < info->dlpi_phnum; index++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[index];
    if (header->p_type == PT_TLS) blockSize = header->p_memsz;
    if (header->p_type == PT_LOAD && info->dlpi_addr + header->p_vaddr < lowest) lowest = info->dlpi_addr + header->p_vaddr;
  }
  if (search->address < block || search->address >= block + blockSize) return 0;
  search->imageStart = lowest;
  search->blockOffset = search->address - block;
  return 1;
}

int cleak_thread_local_symbol(uintptr_t address, char **symbol, uintptr_t *offset) {
  *symbol = NULL;
  *offset = 0;
  if (__builtin_expect(cleak_memory_image_active, 0)) return 0;  // the TLS blocks of this process's images only
  thread_local_search_t search = {address, 0, 0};
  dl_iterate_phdr(findThreadLocalBlock, &search);
  if (search.imageStart == 0) return 0;
  pthread_mutex_lock(&lock);
  Dwfl *dwfl = currentSession();
  Dwfl_Module *module = dwfl == NULL ? NULL : dwfl_addrmodule(dwfl, (Dwarf_Addr)search.imageStart);
  int count = module == NULL ? 0 : dwfl_module_getsymtab(module);
  // A thread-local symbol's value is its offset in the image's block.
  for (int index = 1; index < count && *symbol == NULL; index++) {
    GElf_Sym entry;
    GElf_Addr unused = 0;
    const char *name = dwfl_module_getsym_info(module, index, &entry, &unused, NULL, NULL, NULL);  // st_value as in the file
    if (name == NULL || GELF_ST_TYPE(entry.st_info) != STT_TLS) continue;
    GElf_Xword extent = entry.st_size > 0 ? entry.st_size : 1;
    if (search.blockOffset >= entry.st_value && search.blockOffset < entry.st_value + extent) {
      *symbol = copy(name);
      *offset = (uintptr_t)(search.blockOffset - entry.st_value);
    }
  }
  pthread_mutex_unlock(&lock);
  return *symbol != NULL;
}

/// The file of the loaded image that maps `address` (empty for the program's own), or NULL when
/// none does. glibc 2.35's `_dl_find_object` looks it up in a sorted table; `dladdr`, where it is
/// missing, also looks for the nearest symbol through the image's whole symbol table.
static const char *imageFile(uintptr_t address) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
  struct dl_find_object found;
  if (_dl_find_object((void *)address, &found) != 0) return NULL;
  return found.dlfo_link_map != NULL && found.dlfo_link_map->l_name != NULL ? found.dlfo_link_map->l_name : "";
#else
  Dl_info info;
  return dladdr((const void *)address, &info) != 0 ? info.dli_fname : NULL;
#endif
}

bool cleak_is_in_swift_runtime(uintptr_t pc) {
  if (__builtin_expect(cleak_memory_image_active, 0)) {
    const cleak_image_range *image = cleak_memory_image_loaded_image(pc);
    return image != NULL && image->isSwiftRuntime;
  }
  const char *file = imageFile(pc);
  if (file == NULL) return false;
  const char *name = strrchr(file, '/');
  name = name == NULL ? file : name + 1;
  return strncmp(name, "libswift", strlen("libswift")) == 0;
}

bool cleak_is_in_loaded_image(uintptr_t address) {
  if (__builtin_expect(cleak_memory_image_active, 0)) return cleak_memory_image_loaded_image(address) != NULL;
  return imageFile(address) != NULL;
}
