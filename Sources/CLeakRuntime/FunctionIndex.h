// A compile unit's functions by address range, for finding the function DIE that holds an
// address: swiftc nests a function's DIE in its module's, where libdw's dwarf_getscopes does not
// look, and a walk over every DIE of the unit for each frame made symbolizing a program of 800
// functions in one unit (an optimized module) cost about a millisecond a frame.
#pragma once

#include <elfutils/libdw.h>

/// Sets `function` to the `DW_TAG_subprogram` DIE of `unit` whose code holds `address` (an
/// address in the file, before the module's load bias) and returns 1, or returns 0 when none
/// does. The first lookup in a unit reads the ranges of all its functions, including those
/// inside module, namespace and type DIEs, once; callers hold the symbolizer's lock.
int cleak_function_index_lookup(Dwarf_Die *unit, Dwarf_Addr address, Dwarf_Die *function);
