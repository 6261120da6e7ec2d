#ifndef CLEAK_ENTRY_PATCHING_H
#define CLEAK_ENTRY_PATCHING_H

#include <stdbool.h>
#include <stdint.h>

/// Redirects every call of the function at `entry` to `hook`, in this process, by writing a
/// jump over the function's first instructions (x86-64 only). The instructions it covers are
/// moved to a trampoline, stored in `*original`: calling it runs the function as it was, so a
/// hook passes a call on through it. Returns false, with `*failure` saying why in a few words,
/// when it cannot (the first instructions are not the frame set-up it knows how to move, or no
/// memory near the function is free); the function is then left as it was.
///
///     void *realAllocate;
///     const char *why;
///     if (!cleak_patch_entry(allocObject, (const void *)myHook, &realAllocate, &why)) report(why);
///
/// For start-up, before other threads run the function: the bytes are written in place.
bool cleak_patch_entry(uintptr_t entry, const void *hook, void **original, const char **failure);

#endif
