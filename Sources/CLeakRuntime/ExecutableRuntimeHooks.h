#ifndef CLEAK_EXECUTABLE_RUNTIME_HOOKS_H
#define CLEAK_EXECUTABLE_RUNTIME_HOOKS_H

#include <stdint.h>

#include "SwiftAllocationABI.h"

/// The entry points of a Swift runtime linked into the executable that the tracker's hooks pass
/// each call on to (the trampolines of the patched functions, and `swift_deallocObject`, which
/// the hook of `swift_deallocClassInstance` calls as the interposer calls the shared one's), and
/// the standard library's module descriptor (`$ssMXM`), which tells its classes apart.
typedef struct {
  cleak_allocate_object_t allocate;
  cleak_deallocate_class_instance_t deallocateObject;
  cleak_deallocate_partial_class_instance_t deallocatePartial;  // NULL: the linker dropped it, nothing calls it
  cleak_task_create_t createTask;  // NULL: the program makes no task (the linker dropped it)
  uintptr_t standardLibraryModule;  // 0: the program allocates no class of the standard library
} cleak_executable_runtime_entries;

/// The hooks the patched entry points of the executable's runtime jump to: they record and
/// forget objects and tasks as the interposers of the shared runtime do.
void *cleak_executable_allocate_object(const void *metadata, size_t size, size_t alignMask);
void cleak_executable_deallocate_class_instance(void *object, size_t allocatedSize, size_t allocatedAlignMask);
void cleak_executable_deallocate_partial_class_instance(void *object, const void *metadata, size_t size, size_t alignMask);
__attribute__((swiftcall)) cleak_task_and_context_t cleak_executable_task_create(size_t flags, void *options, const void *resultType,
                                                                                 void *entry, void *context);

/// Where the hooks pass calls on; set before any entry point is patched. Each `entries` field
/// the hooks use is read once set, so a field is set before the patch that needs it.
extern cleak_executable_runtime_entries cleak_executable_runtime;

/// Marks the executable's runtime as the one whose allocations the tracker sees.
void cleak_tracker_use_executable_runtime(void);

#endif
