// The Swift runtime's entry points this target calls, declared once and kept out of the public
// header, so that no Swift code names runtime symbols. The allocation entry points, which the
// tracker defines and `swift_deallocObject`, are in `SwiftAllocationABI.h` (shared with the loader).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <stdbool.h>

extern bool swift_isDeallocating(void *object);
extern void swift_release(void *object);
extern size_t swift_retainCount(void *object);
extern void *swift_weakLoadStrong(void *weakReference);
extern char *swift_demangle(const char *mangledName, size_t mangledNameLength, char *outputBuffer,
                            size_t *outputBufferSize, uint32_t flags);
