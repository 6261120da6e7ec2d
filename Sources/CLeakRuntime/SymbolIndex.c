#include "SymbolIndex.h"

#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/// A symbol of the index: 16 bytes, so that indexing a large library's table (libswiftCore has
/// about 36,000 symbols) writes little fresh memory. Its name and section are read from the
/// module's table when a lookup chooses it.
typedef struct {
  GElf_Addr start;
  uint32_t tie;   // binding (0–3) << 29 | index in the module's table
  uint32_t size;  // the symbol's size, at most 2^32 - 1
} entry_t;

enum { indexBits = 29 };
static const uint32_t indexMask = (1u << indexBits) - 1;

static int bindingOf(const entry_t *entry) {
  return (int)(entry->tie >> indexBits);
}

static int indexOfEntry(const entry_t *entry) {
  return (int)(entry->tie & indexMask);
}

typedef struct {
  Dwfl_Module *module;
  entry_t *entries;  // by start
  size_t count;
} index_t;

/// The modules indexed so far, of one kind of index (a process maps a few hundred images at
/// most; past that, lookups fall back to libdwfl's).
enum { maximumModules = 1024 };
typedef struct {
  index_t modules[maximumModules];
  size_t count;
} index_list_t;

/// The entry for the table's symbol `index`, in `entry`; 0 when the symbol is not indexed.
typedef int (*entry_maker_t)(int index, const GElf_Sym *symbol, GElf_Addr address, GElf_Word section, const char *name, entry_t *entry);

static int bindingStrength(const GElf_Sym *symbol) {
  switch (GELF_ST_BIND(symbol->st_info)) {
  case STB_GLOBAL: return 3;
  case STB_GNU_UNIQUE: return 2;
  case STB_WEAK: return 1;
  default: return 0;
  }
}

static int compareEntries(const void *left, const void *right) {
  const entry_t *a = left, *b = right;
  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  return a->tie < b->tie ? -1 : a->tie > b->tie;
}

/// Sorts `count` entries by start, least significant byte first (a symbol table of a large
/// library has tens of thousands of symbols: a comparison sort through a function pointer took
/// milliseconds of each exit capture); only the bytes in which the starts differ are passed over.
/// The sort is stable: entries with the same start keep their order (a lookup by address chooses
/// among them by binding and index itself; the name index relies on the table's order among
/// equal hashes). Falls back to `qsort` by start then tie when there is no memory for the second
/// buffer.
static void sortEntries(entry_t *entries, size_t count) {
  entry_t *spare = malloc(sizeof(entry_t) * count);
  if (spare == NULL) {
    qsort(entries, count, sizeof(entry_t), compareEntries);
    return;
  }
  uint64_t startBits = 0;
  for (size_t position = 0; position < count; position++) startBits |= entries[position].start ^ entries[0].start;
  entry_t *from = entries, *to = spare;
  for (int shift = 0; shift < 64; shift += 8) {
    if ((startBits >> shift & 0xFF) == 0) continue;
    size_t counts[257] = {0};
    for (size_t position = 0; position < count; position++) counts[(from[position].start >> shift & 0xFF) + 1]++;
    for (int byte = 0; byte < 256; byte++) counts[byte + 1] += counts[byte];
    for (size_t position = 0; position < count; position++) to[counts[from[position].start >> shift & 0xFF]++] = from[position];
    entry_t *swap = from;
    from = to;
    to = swap;
  }
  if (from != entries) memcpy(entries, from, sizeof(entry_t) * count);
  free(spare);
}

/// `module`'s index in `list`, made from its table by `makeEntry` (every symbol read once) and
/// sorted the first time; NULL when there is no room or memory for it.
static const index_t *indexIn(index_list_t *list, Dwfl_Module *module, entry_maker_t makeEntry) {
  for (size_t position = 0; position < list->count; position++) {
    if (list->modules[position].module == module) return &list->modules[position];
  }
  if (list->count == maximumModules) return NULL;
  int count = dwfl_module_getsymtab(module);
  entry_t *entries = count > 0 ? malloc(sizeof(entry_t) * (size_t)count) : NULL;
  size_t kept = 0;
  for (int index = 1; entries != NULL && index < count && (uint32_t)index <= indexMask; index++) {
    GElf_Sym symbol;
    GElf_Addr address = 0;
    GElf_Word section = 0;
    const char *name = dwfl_module_getsym_info(module, index, &symbol, &address, &section, NULL, NULL);
    if (name != NULL && section != SHN_UNDEF && makeEntry(index, &symbol, address, section, name, &entries[kept])) kept++;
  }
  if (kept > 0) sortEntries(entries, kept);
  list->modules[list->count] = (index_t){module, entries, kept};
  return &list->modules[list->count++];
}

/// A symbol by its address: every named symbol but sections, files and thread-local variables.
/// An empty name is one at offset 0 of the string table: asked of the symbol, not of the name's
/// bytes, so that indexing reads none of the (megabytes of) names.
static int addressEntry(int index, const GElf_Sym *symbol, GElf_Addr address, GElf_Word section, const char *name, entry_t *entry) {
  (void)section;
  (void)name;
  int type = GELF_ST_TYPE(symbol->st_info);
  if (symbol->st_name == 0 || type == STT_SECTION || type == STT_FILE || type == STT_TLS) return 0;
  uint32_t size = symbol->st_size > UINT32_MAX ? UINT32_MAX : (uint32_t)symbol->st_size;
  *entry = (entry_t){address, (uint32_t)bindingStrength(symbol) << indexBits | (uint32_t)index, size};
  return 1;
}

static index_list_t addressIndexes;

// MARK: - Functions by name

/// A module's functions by a hash of their names: entries whose `start` is the hash and whose
/// `tie` is the symbol's index in the table (binding 0); sorted, equal hashes come together, in
/// the order of the table.
static index_list_t nameIndexes;

static uint64_t nameHash(const char *name, size_t length) {  // FNV-1a
  uint64_t hash = 0xcbf29ce484222325u;
  for (size_t position = 0; position < length; position++) hash = (hash ^ (unsigned char)name[position]) * 0x100000001b3u;
  return hash;
}

/// A function by the hash of its name.
static int functionNameEntry(int index, const GElf_Sym *symbol, GElf_Addr address, GElf_Word section, const char *name, entry_t *entry) {
  (void)address;
  (void)section;
  if (GELF_ST_TYPE(symbol->st_info) != STT_FUNC) return 0;
  *entry = (entry_t){nameHash(name, strlen(name)), (uint32_t)index, 0};
  return 1;
}

/// Whether the table's symbol `index` is the function `name` (`length` bytes); its address then.
static int isFunctionNamed(Dwfl_Module *module, int index, const char *name, size_t length, GElf_Addr *address) {
  GElf_Sym symbol;
  const char *candidate = dwfl_module_getsym_info(module, index, &symbol, address, NULL, NULL, NULL);
  return candidate != NULL && GELF_ST_TYPE(symbol.st_info) == STT_FUNC && strncmp(candidate, name, length) == 0 && candidate[length] == 0;
}

int cleak_symbol_index_find_function(Dwfl_Module *module, const char *name, size_t length, GElf_Addr *address) {
  const index_t *index = indexIn(&nameIndexes, module, functionNameEntry);
  if (index == NULL) {  // no room for an index: the table in order
    int count = dwfl_module_getsymtab(module);
    for (int position = 1; position < count; position++) {
      if (isFunctionNamed(module, position, name, length, address)) return 1;
    }
    return 0;
  }
  uint64_t hash = nameHash(name, length);
  size_t low = 0, high = index->count;
  while (low < high) {
    size_t middle = low + (high - low) / 2;
    if (index->entries[middle].start < hash) low = middle + 1; else high = middle;
  }
  for (size_t position = low; position < index->count && index->entries[position].start == hash; position++) {
    if (isFunctionNamed(module, (int)index->entries[position].tie, name, length, address)) return 1;
  }
  return 0;
}

// MARK: - Lookups by address

/// Whether `address` lies in the module's section number `section`: a label names only addresses
/// of its own section (past the end of `.bss`, `_end` is no name for a thread-local block).
static int isInSection(Dwfl_Module *module, GElf_Addr address, const entry_t *label) {
  GElf_Sym symbol;
  GElf_Addr start = 0;
  GElf_Word section = 0;
  if (dwfl_module_getsym_info(module, indexOfEntry(label), &symbol, &start, &section, NULL, NULL) == NULL) return 0;
  Dwarf_Addr relative = address, bias = 0;
  Elf_Scn *found = dwfl_module_address_section(module, &relative, &bias);
  return found != NULL && elf_ndxscn(found) == section;
}

/// Whether `candidate` is a better holder than `best` (NULL: none yet).
static int isBetter(const entry_t *candidate, const entry_t *best) {
  if (best == NULL) return 1;
  if (bindingOf(candidate) != bindingOf(best)) return bindingOf(candidate) > bindingOf(best);
  if (candidate->start != best->start) return candidate->start > best->start;
  return indexOfEntry(candidate) < indexOfEntry(best);
}

int cleak_symbol_index_lookup(Dwfl_Module *module, GElf_Addr address, cleak_symbol *symbol) {
  const index_t *index = indexIn(&addressIndexes, module, addressEntry);
  if (index == NULL) {
    GElf_Off offset = 0;
    GElf_Sym found;
    const char *name = dwfl_module_addrinfo(module, address, &offset, &found, NULL, NULL, NULL);
    if (name == NULL) return 0;
    *symbol = (cleak_symbol){name, address - offset, found.st_size};
    return 1;
  }
  // The first entry past the address.
  size_t low = 0, high = index->count;
  while (low < high) {
    size_t middle = low + (high - low) / 2;
    if (index->entries[middle].start <= address) low = middle + 1; else high = middle;
  }
  // Sized symbols that hold the address: aliases share a start, and a symbol may hold others
  // (a function around its local labels), so a few starts below are looked at too.
  enum { window = 64 };
  const entry_t *best = NULL, *label = NULL;
  GElf_Addr sizedEnd = 0;  // the highest end of the sized symbols below the address
  for (size_t position = low; position > 0 && low - position < window; position--) {
    const entry_t *entry = &index->entries[position - 1];
    if (entry->size == 0) {
      if (label == NULL || (entry->start == label->start && isBetter(entry, label))) label = entry;
      continue;
    }
    if (entry->start + entry->size > sizedEnd) sizedEnd = entry->start + entry->size;
    if (address < entry->start + entry->size && isBetter(entry, best)) best = entry;
  }
  if (best == NULL && label != NULL && label->start >= sizedEnd && isInSection(module, address, label)) best = label;
  if (best == NULL) return 0;
  GElf_Sym entry;
  GElf_Addr start = 0;
  const char *name = dwfl_module_getsym_info(module, indexOfEntry(best), &entry, &start, NULL, NULL, NULL);
  if (name == NULL || name[0] == 0) return 0;
  *symbol = (cleak_symbol){name, best->start, best->size};
  return 1;
}
