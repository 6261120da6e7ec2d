// A module's compile units by address range, for finding the unit that holds an address: swiftc
// and clang emit no .debug_aranges, so libdw's own lookup finds no unit for their code, and a
// walk over every unit's ranges for each frame made symbolizing a test binary of a few hundred
// files cost seconds.
#pragma once

#include <elfutils/libdw.h>

/// Sets `unit` to the compile unit of `dwarf` whose ranges hold `address` (an address in the
/// file, before the module's load bias) and returns 1, or returns 0 when none does. The first
/// lookup in a module reads every unit's ranges once; callers hold the symbolizer's lock.
int cleak_unit_index_lookup(Dwarf *dwarf, Dwarf_Addr address, Dwarf_Die *unit);
