// Swift concurrency as allocation stacks read it: how an async function's frame keeps its async
// context, the context's link to its caller, and the fields of a task the runtime resumes it
// through.
//
// Read from the Swift runtime's sources (`include/swift/ABI/Task.h`: `Job`, `AsyncTask`,
// `AsyncContext`; `stdlib/public/RuntimeModule/FramePointerUnwinder.swift`, the runtime's own
// async unwinding) and LLVM's tests of `swiftasync` frames (`test/CodeGen/X86/swift-async.ll`),
// and checked against the code of the Swift 6.3.1 toolchain for Linux x86-64: every async
// function with a frame pushes its context right below its frame record, and
// `swift::runJobInEstablishedExecutorContext` resumes a task with
// `mov 0x40(%r15),%r14; call *0x38(%r15)`.
#ifndef CLEAK_SWIFT_CONCURRENCY_LAYOUT_H
#define CLEAK_SWIFT_CONCURRENCY_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "SwiftHeapObjectLayout.h"

/// `AsyncContext`: the frame of an async function, allocated by its caller (on the task's stack
/// allocator, or inside the caller's own context): the caller's context (null for the first
/// function of a task), and the function that resumes the caller when this one returns (a
/// partial function of the caller, `(1) await resume partial function for Caller.f()`; for the
/// first function of a task, the runtime's `completeTask…`).
typedef struct {
  uintptr_t parent;
  uintptr_t resumeParent;
} cleak_async_context;

_Static_assert(sizeof(cleak_async_context) == 2 * sizeof(uintptr_t), "6.3.1 async context header");

/// Contexts are aligned as `alignas(MaximumAlignment)` says (16 bytes on 64-bit targets); a link
/// that is not is no context.
static const uintptr_t cleak_async_context_alignment = 16;

/// Where an async function's frame keeps its context: the word right below its frame record
/// (LLVM's extended frame for `swiftasync` functions; the unwinder reads `fp - 8`).
static const uintptr_t cleak_async_context_below_frame_record = sizeof(uintptr_t);

// No flag marks an async function's frame on Linux: Darwin sets bit 60 of the saved frame
// pointer (`swift_async_extendedFramePointerFlags`), but neither the 6.3.1 runtime for Linux nor
// code that compiler makes there ever sets it (they only clear it), and the runtime's unwinder
// does not look for it there. The frame the runtime resumes is recognized by its return address
// instead (StackTable.c).

/// `Job` and the start of `AsyncTask` on 64-bit targets: the header every job shares, then the
/// function that resumes the task (`ResumeTask`, in a union with a plain job's `RunJob`) and the
/// context it is resumed with (`ResumeContext`).
typedef struct {
  cleak_heap_object header;
  uintptr_t schedulerPrivate[2];
  uint32_t flags;
  uint32_t id;
  uintptr_t voucher;
  uintptr_t reserved;
  uintptr_t resumeTask;
  uintptr_t resumeContext;
} cleak_async_task_prefix;

_Static_assert(offsetof(cleak_async_task_prefix, id) == 4 * sizeof(void *) + 4, "6.3.1 Job::Id (Task.h checks it too)");
_Static_assert(offsetof(cleak_async_task_prefix, resumeTask) == 56, "6.3.1 Job::ResumeTask");
_Static_assert(offsetof(cleak_async_task_prefix, resumeContext) == 64, "6.3.1 AsyncTask::ResumeContext");

#endif
