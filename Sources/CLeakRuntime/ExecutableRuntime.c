#define _GNU_SOURCE
#include "CLeakRuntime.h"
#include "EntryPatching.h"
#include "ExecutableRuntimeHooks.h"
#include "ExecutableSymbols.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A Swift runtime linked into the executable (`-static-stdlib`): found by the executable's
// symbol table, and hooked by patching the entry points the tracker interposes in the shared
// runtime (EntryPatching.h).

static const char stdlibVersionPrefix[] = "$sSo19_SwiftStdlibVersionasE";
static const char stdlibVersionSuffix[] = "ABvpZMV";

static void readFact(const char *name, uintptr_t address, uintptr_t size, void *context) {
  (void)size;
  (void)address;
  cleak_executable_runtime_facts *facts = context;
  if (strcmp(name, "swift_allocObject") == 0) {
    facts->hasOwnRuntime = true;
    return;
  }
  // `$sSo19_SwiftStdlibVersionasE6v6_3_0ABvpZMV`: the identifier carries its length.
  size_t prefixLength = sizeof stdlibVersionPrefix - 1;
  if (strncmp(name, stdlibVersionPrefix, prefixLength) != 0) return;
  char *end = NULL;
  unsigned long identifierLength = strtoul(name + prefixLength, &end, 10);
  int major = 0, minor = 0, patch = 0;
  if (end == NULL || identifierLength == 0 || strncmp(end + identifierLength, stdlibVersionSuffix, sizeof stdlibVersionSuffix) != 0 ||
      sscanf(end, "v%d_%d_%d", &major, &minor, &patch) != 3) {
    return;
  }
  if (major > facts->standardLibraryMajorVersion ||
      (major == facts->standardLibraryMajorVersion && minor > facts->standardLibraryMinorVersion)) {
    facts->standardLibraryMajorVersion = major;
    facts->standardLibraryMinorVersion = minor;
  }
}

void cleak_executable_runtime_read_facts(cleak_executable_runtime_facts *facts) {
  memset(facts, 0, sizeof *facts);
  facts->hasSymbolTable = cleak_executable_symbols_each(readFact, facts);
}

uintptr_t cleak_executable_symbol(const char *name) {
  uintptr_t address = 0;
  const char *names[] = {name};
  cleak_executable_symbols_find(names, 1, &address);
  return address;
}

static atomic_bool hooked = false;

bool cleak_executable_runtime_is_hooked(void) {
  return atomic_load(&hooked);
}

/// Writes `what` and `why` into `failure` and returns false.
static bool fail(char *failure, size_t capacity, const char *what, const char *why) {
  snprintf(failure, capacity, "%s%s%s", what, why ? ": " : "", why ? why : "");
  return false;
}

bool cleak_executable_runtime_hook(char *failure, size_t capacity) {
  enum { allocate, deallocateClassInstance, deallocatePartial, createTask, deallocateObject, standardLibrary, count };
  const char *names[count] = {"swift_allocObject", "swift_deallocClassInstance", "swift_deallocPartialClassInstance",
                              "swift_task_create", "swift_deallocObject", "$ssMXM"};
  uintptr_t addresses[count];
  if (!cleak_executable_symbols_find(names, count, addresses)) {
    return fail(failure, capacity, "its symbol table, which names the runtime's functions, was stripped", NULL);
  }
  // The linker drops the functions a program never calls (`--gc-sections`): one without failable
  // initializers has no `swift_deallocPartialClassInstance`, one without tasks no
  // `swift_task_create`, and one without classes of the standard library's, no `$ssMXM`.
  const int required[] = {allocate, deallocateClassInstance, deallocateObject};
  for (size_t index = 0; index < sizeof required / sizeof required[0]; index++) {
    if (addresses[required[index]] == 0) return fail(failure, capacity, "its symbol table lacks", names[required[index]]);
  }
  cleak_executable_runtime.deallocateObject = (cleak_deallocate_class_instance_t)addresses[deallocateObject];
  cleak_executable_runtime.standardLibraryModule = addresses[standardLibrary];
  cleak_tracker_use_executable_runtime();
  // The patch stores each trampoline before its entry point jumps to the hook that calls it;
  // objects end through the hooks before any begins there.
  struct {
    int index;
    const void *hook;
    void **original;
  } patches[] = {
      {deallocateClassInstance, (const void *)cleak_executable_deallocate_class_instance, NULL},
      {deallocatePartial, (const void *)cleak_executable_deallocate_partial_class_instance,
       (void **)&cleak_executable_runtime.deallocatePartial},
      {createTask, (const void *)cleak_executable_task_create, (void **)&cleak_executable_runtime.createTask},
      {allocate, (const void *)cleak_executable_allocate_object, (void **)&cleak_executable_runtime.allocate},
  };
  for (size_t index = 0; index < sizeof patches / sizeof patches[0]; index++) {
    uintptr_t entry = addresses[patches[index].index];
    if (entry == 0) continue;
    void *original = NULL;
    const char *why = NULL;
    if (!cleak_patch_entry(entry, patches[index].hook, patches[index].original ? patches[index].original : &original, &why)) {
      char what[128];
      snprintf(what, sizeof what, "its runtime's %s cannot be hooked", names[patches[index].index]);
      return fail(failure, capacity, what, why);
    }
  }
  atomic_store(&hooked, true);
  return true;
}
