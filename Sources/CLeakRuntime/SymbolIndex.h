// A module's symbols sorted by address, for symbolizing many addresses: libdwfl's own address
// lookup (`dwfl_module_addrinfo`) reads the whole symbol table for each address, which for the
// 36,000 symbols of libswiftCore cost tens of microseconds per frame and made symbolization most
// of an exit capture.
#pragma once

#include <elfutils/libdwfl.h>

typedef struct {
  const char *name;  // owned by the module's libdwfl session
  GElf_Addr start;   // as loaded
  GElf_Xword size;   // 0 for a label
} cleak_symbol;

/// The symbol that holds `address` in `module`, chosen as `dwfl_module_addrinfo` chooses: of the
/// sized symbols that hold it, the one with the strongest binding (global, unique, weak, local),
/// then the latest start, then the first in the table; failing that, the label (a symbol without
/// size) nearest below it, in the same section, when no sized symbol lies between them. Returns 0
/// when there is none.
/// The first lookup in a module reads and sorts its table; callers hold the symbolizer's lock.
int cleak_symbol_index_lookup(Dwfl_Module *module, GElf_Addr address, cleak_symbol *symbol);

/// The address of the function symbol named exactly `name` (`length` bytes) in `module`, the
/// first such in its table, in `address`; returns 0 when there is none. The first search in a
/// module indexes its functions by a hash of their names (a partial-apply forwarder is named by
/// the function it forwards to, which is looked up by name for every such frame); callers hold
/// the symbolizer's lock.
int cleak_symbol_index_find_function(Dwfl_Module *module, const char *name, size_t length, GElf_Addr *address);
