#ifndef CLEAK_SWIFT_ALLOCATION_ABI_H
#define CLEAK_SWIFT_ALLOCATION_ABI_H

// The Swift runtime's allocation entry points that this package interposes, declared once: the
// allocation tracker (`CLeakRuntime/AllocationTracking.c`) defines them to record objects and
// tasks, and the loader of `leak-detector run` (`CLeakPreload/Preload.c`) defines them to pass
// each call on to the agent's definitions (found with `dlsym`) or the runtime's. Both files
// include this header, so the compiler checks each definition against these declarations, and
// the function-pointer types below against the declarations (the assertions at the end).
//
// The signatures are the runtime's (Swift 6.3.1), as its own `swift/Runtime/HeapObject.h` and
// `swift/Runtime/Concurrency.h` declare them with C types in place of its C++ ones; the
// toolchain installs no header for them, so nothing here can be compiled against those. A
// header-only target, so that the loader can use it without linking the tracker's interposers.
// Swift code never imports it: no Swift declaration may name a runtime symbol.

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// `swift_allocObject`: allocates an instance of the class `metadata`, `size` bytes aligned to
/// `alignMask + 1`, with its header initialized.
typedef void *(*cleak_allocate_object_t)(const void *metadata, size_t size, size_t alignMask);

/// `swift_deallocClassInstance`: frees an instance whose deinit ran (the deallocating deinit's
/// last call), `allocatedSize` bytes aligned to `allocatedAlignMask + 1`.
typedef void (*cleak_deallocate_class_instance_t)(void *object, size_t allocatedSize, size_t allocatedAlignMask);

/// `swift_deallocPartialClassInstance`: frees an instance whose initializer failed, after
/// destroying the fields of the classes from `metadata` down that it had initialized.
typedef void (*cleak_deallocate_partial_class_instance_t)(void *object, const void *metadata, size_t size, size_t alignMask);

/// What `swift_task_create` returns, in two registers: the new task and its initial context
/// (`AsyncTaskAndContext`).
typedef struct {
  void *task;
  void *initialContext;
} cleak_task_and_context_t;

/// `swift_task_create` (`SWIFT_CC(swift)`): makes a task from its flags, its options record, the
/// type of its result, and its entry function and closure context.
typedef cleak_task_and_context_t (*cleak_task_create_t)(size_t flags, void *options, const void *resultType, void *entry,
                                                        void *context) __attribute__((swiftcall));

void *swift_allocObject(const void *metadata, size_t size, size_t alignMask);
void swift_deallocClassInstance(void *object, size_t allocatedSize, size_t allocatedAlignMask);
void swift_deallocPartialClassInstance(void *object, const void *metadata, size_t size, size_t alignMask);
__attribute__((swiftcall)) cleak_task_and_context_t swift_task_create(size_t flags, void *options, const void *resultType,
                                                                      void *entry, void *context);

/// What `swift_deallocClassInstance` does on Linux besides a debug check: frees the memory.
/// The tracker calls it directly (Documentation/RuntimeNotes.md); nothing interposes it.
void swift_deallocObject(void *object, size_t allocatedSize, size_t allocatedAlignMask);

// A pointer type that disagreed with its declaration would call through the wrong signature
// wherever a definition is looked up with `dlsym` and called through it.
_Static_assert(__builtin_types_compatible_p(__typeof__(&swift_allocObject), cleak_allocate_object_t),
               "cleak_allocate_object_t must be swift_allocObject's type");
_Static_assert(__builtin_types_compatible_p(__typeof__(&swift_deallocClassInstance), cleak_deallocate_class_instance_t),
               "cleak_deallocate_class_instance_t must be swift_deallocClassInstance's type");
_Static_assert(__builtin_types_compatible_p(__typeof__(&swift_deallocPartialClassInstance),
                                            cleak_deallocate_partial_class_instance_t),
               "cleak_deallocate_partial_class_instance_t must be swift_deallocPartialClassInstance's type");
_Static_assert(__builtin_types_compatible_p(__typeof__(&swift_task_create), cleak_task_create_t),
               "cleak_task_create_t must be swift_task_create's type, calling convention included");

#ifdef __cplusplus
}
#endif

#endif
