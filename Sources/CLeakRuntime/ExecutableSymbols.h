#ifndef CLEAK_EXECUTABLE_SYMBOLS_H
#define CLEAK_EXECUTABLE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// Looks up `count` symbols of this process's main executable in its file's symbol table
/// (`.symtab`, which also lists the local symbols `.dynsym` leaves out: the functions of a Swift
/// runtime linked into the executable are local), and stores where each one is in memory in
/// `addresses` (0 for a name the table lacks). Returns false when the file has no symbol table
/// (it was stripped) or cannot be read; then every address is 0.
///
///     const char *names[] = {"swift_allocObject", "$ssMXM"};
///     uintptr_t addresses[2];
///     if (cleak_executable_symbols_find(names, 2, addresses) && addresses[0] != 0) { … }
///
/// Reads the file with libelf and allocates: not for a signal handler or a hook.
bool cleak_executable_symbols_find(const char *const *names, size_t count, uintptr_t *addresses);

/// Calls `visit` with the name, address in memory and size of each symbol the main executable's
/// symbol table defines (as `cleak_executable_symbols_find` reads it). Returns false when the file has
/// no symbol table or cannot be read.
bool cleak_executable_symbols_each(void (*visit)(const char *name, uintptr_t address, uintptr_t size, void *context),
                                   void *context);

/// The address this process's main executable is loaded at (what its file's addresses are
/// offset by).
uintptr_t cleak_executable_load_bias(void);

#endif
